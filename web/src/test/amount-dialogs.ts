// The four dialogs that create an order with an amount (rebill, subscription, payment link,
// payout), opened the same way for the tests of the amount rules they share: the large-amount
// confirmation and the per-order limit.
import { screen, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { expect } from 'vitest';
import { FakeBff, makeUser } from './fake-bff';
import { renderApp } from './render-app';

export type Roles = Parameters<typeof makeUser>[0]['roles'];

export const bffAs = (roles: Roles) =>
  new FakeBff({
    signedInAs: 'olga@example.com',
    users: [makeUser({ email: 'olga@example.com', name: 'Olga', roles })],
  });

export interface DialogCase {
  name: string;
  path: string;
  roles: Roles;
  button: string;
  /** the request that creates the order */
  request: [string, string];
  amountLabel: RegExp;
  /** fills every field but the amount */
  fill: (user: UserEvent, dialog: HTMLElement) => Promise<void>;
  /** the form's submit button */
  submit: string;
  /** after the form's submit: through a confirmation step, if any (it says `note` when given) */
  confirm?: (user: UserEvent, note?: RegExp) => Promise<void>;
}

const type = async (user: UserEvent, dialog: HTMLElement, label: RegExp, text: string) => {
  await user.type(within(dialog).getByLabelText(label), text);
};

const confirmStep = (title: string, button: RegExp) => async (user: UserEvent, note?: RegExp) => {
  const dialog = await screen.findByRole('dialog', { name: title });
  if (note !== undefined) expect(within(dialog).getByText(note)).toBeInTheDocument();
  else expect(within(dialog).queryByText(/check the amount once more/)).not.toBeInTheDocument();
  await user.click(within(dialog).getByRole('button', { name: button }));
};

export const CASES: DialogCase[] = [
  {
    name: 'rebill',
    path: '/cards?ref=card-ref-1',
    roles: ['finance'],
    button: 'Rebill a card',
    request: ['POST', '/api/rebills'],
    amountLabel: /^Amount/,
    fill: async (user, dialog) => {
      await type(user, dialog, /Description/, 'Top-up');
      await type(user, dialog, /Reason/, 'agreed with the customer');
    },
    submit: 'Continue',
    confirm: confirmStep('Confirm the rebill', /^Charge/),
  },
  {
    name: 'subscription',
    path: '/subscriptions',
    roles: ['finance'],
    button: 'New subscription',
    request: ['POST', '/api/subscriptions'],
    amountLabel: /Amount per charge/,
    fill: async (user, dialog) => {
      await type(user, dialog, /Card reference id/, 'card-ref-1');
      await type(user, dialog, /Description/, 'Monthly plan');
      await type(user, dialog, /Customer e-mail/, 'payer@example.com');
    },
    submit: 'Continue',
    confirm: confirmStep('Confirm the subscription', /^Create:/),
  },
  {
    name: 'payment link (payout-form)',
    path: '/payment-links',
    roles: ['ops'],
    button: 'New payment link',
    request: ['POST', '/api/payment-links'],
    amountLabel: /^Amount/,
    fill: async (user, dialog) => {
      await type(user, dialog, /Description/, 'Seller payout');
    },
    submit: 'Submit for approval',
  },
  {
    name: 'payout',
    path: '/payouts',
    roles: ['ops'],
    button: 'Prepare payout',
    request: ['POST', '/api/payouts'],
    amountLabel: /^Amount/,
    fill: async (user, dialog) => {
      await type(user, dialog, /Card number/, '4111111111111111');
      await type(user, dialog, /Cardholder name/, 'JANE DOE');
      await type(user, dialog, /Expiry month/, '12');
      await type(user, dialog, /Expiry year/, '2035');
      await type(user, dialog, /Description/, 'Refund');
    },
    submit: 'Check and submit for approval',
  },
];

export async function openDialog(c: DialogCase, bff: FakeBff) {
  const app = renderApp(c.path, bff);
  await app.user.click(await screen.findByRole('button', { name: c.button }));
  const dialog = await screen.findByRole('dialog', {
    name: new RegExp(c.button.split(' ')[0] ?? ''),
  });
  await c.fill(app.user, dialog);
  return { app, dialog, form: within(dialog) };
}

export const sentBodies = (bff: FakeBff, [method, path]: [string, string]) =>
  bff.requestsTo(method, path).map((r) => r.body as Record<string, unknown>);
