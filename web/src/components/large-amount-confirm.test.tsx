// The fat-finger guard of the four dialogs that create an order with an amount: above the
// currency's threshold (the fake session says 10000.00) the amount is typed twice, and the
// request then says `confirmLargeAmount: true`; the fake BFF refuses it otherwise, as the BFF.
import { screen, waitFor, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeBff, makeUser } from '../test/fake-bff';
import { renderApp } from '../test/render-app';

type Roles = Parameters<typeof makeUser>[0]['roles'];

const bffAs = (roles: Roles) =>
  new FakeBff({
    signedInAs: 'olga@example.com',
    users: [makeUser({ email: 'olga@example.com', name: 'Olga', roles })],
  });

const CONFIRM = /Type the amount again to confirm/;

interface DialogCase {
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

const CASES: DialogCase[] = [
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

async function openDialog(c: DialogCase, bff: FakeBff) {
  const app = renderApp(c.path, bff);
  await app.user.click(await screen.findByRole('button', { name: c.button }));
  const dialog = await screen.findByRole('dialog', {
    name: new RegExp(c.button.split(' ')[0] ?? ''),
  });
  await c.fill(app.user, dialog);
  return { app, dialog, form: within(dialog) };
}

const sentBodies = (bff: FakeBff, [method, path]: [string, string]) =>
  bff.requestsTo(method, path).map((r) => r.body as Record<string, unknown>);

describe.each(CASES)('the $name dialog and a large amount', (c) => {
  it('when the amount is at the threshold, then nothing more is asked and the request says nothing of it', async () => {
    const bff = bffAs(c.roles);
    const { app, form } = await openDialog(c, bff);
    await app.user.type(form.getByLabelText(c.amountLabel), '10000.00');
    expect(form.queryByLabelText(CONFIRM)).not.toBeInTheDocument();
    await app.user.click(form.getByRole('button', { name: c.submit }));
    await c.confirm?.(app.user);
    await waitFor(() => {
      expect(sentBodies(bff, c.request)).toHaveLength(1);
    });
    expect(sentBodies(bff, c.request)[0]).not.toHaveProperty('confirmLargeAmount');
  });

  it('when the amount is above it, then it must be typed again, equal, before the request goes with confirmLargeAmount', async () => {
    const bff = bffAs(c.roles);
    const { app, form } = await openDialog(c, bff);
    await app.user.type(form.getByLabelText(c.amountLabel), '12000.5');
    const again = form.getByLabelText(CONFIRM);
    expect(again).toBeRequired();
    expect(again).toHaveAccessibleDescription(
      'Above €10,000.00 Paydesk asks for the amount twice.',
    );

    await app.user.click(form.getByRole('button', { name: c.submit }));
    await waitFor(() => {
      expect(again).toHaveAccessibleDescription('Type the amount again to confirm it.');
    });
    expect(again).toHaveAttribute('aria-invalid', 'true');
    await waitFor(() => {
      expect(again).toHaveFocus();
    });

    await app.user.type(again, '1200.50');
    await app.user.click(form.getByRole('button', { name: c.submit }));
    await waitFor(() => {
      expect(again).toHaveAccessibleDescription('You typed €1,200.50 here but €12,000.50 above.');
    });
    expect(bff.requestsTo(...c.request)).toHaveLength(0);

    await app.user.clear(again);
    // The same amount in another of the forms the amount field takes.
    await app.user.type(again, '12000.50');
    await app.user.click(form.getByRole('button', { name: c.submit }));
    await c.confirm?.(app.user, /This is above €10,000\.00: check the amount once more\./);
    await waitFor(() => {
      expect(sentBodies(bff, c.request)).toHaveLength(1);
    });
    const [sent] = sentBodies(bff, c.request);
    expect(sent).toMatchObject({ confirmLargeAmount: true });
    // (rebill and subscription send it with two decimals, the others as typed)
    expect(String(sent?.amount)).toMatch(/^12000\.50?$/);
  });

  it('when the amount changes, then the re-typed one is cleared; below the threshold the field goes and the flag with it', async () => {
    const bff = bffAs(c.roles);
    const { app, form } = await openDialog(c, bff);
    const amount = form.getByLabelText(c.amountLabel);
    await app.user.type(amount, '20000');
    await app.user.type(form.getByLabelText(CONFIRM), '20000');
    await app.user.type(amount, '0');
    expect(form.getByLabelText(CONFIRM)).toHaveValue('');
    await app.user.clear(amount);
    await app.user.type(amount, '200');
    expect(form.queryByLabelText(CONFIRM)).not.toBeInTheDocument();
    await app.user.click(form.getByRole('button', { name: c.submit }));
    await c.confirm?.(app.user);
    await waitFor(() => {
      expect(sentBodies(bff, c.request)).toHaveLength(1);
    });
    expect(sentBodies(bff, c.request)[0]).not.toHaveProperty('confirmLargeAmount');
  });

  it('when the BFF still refuses it (its thresholds changed since sign-in), then its words show at the confirmation field, and confirming sends it', async () => {
    const bff = bffAs(c.roles);
    bff.largeAmount = { default: '50000.00', currencies: {} };
    bff.largeAmountEnforced = { default: '10000.00', currencies: { EUR: '15000.00' } };
    const { app } = await openDialog(c, bff);
    let form = within(screen.getByRole('dialog'));
    await app.user.type(form.getByLabelText(c.amountLabel), '20000');
    expect(form.queryByLabelText(CONFIRM)).not.toBeInTheDocument();
    await app.user.click(form.getByRole('button', { name: c.submit }));
    await c.confirm?.(app.user);
    await waitFor(() => {
      expect(sentBodies(bff, c.request)).toHaveLength(1);
    });
    form = within(
      await screen.findByRole('dialog', { name: new RegExp(c.button.split(' ')[0] ?? '') }),
    );
    const again = await form.findByLabelText(CONFIRM);
    await waitFor(() => {
      expect(again).toHaveAccessibleDescription(
        /^20000(\.00)? EUR is above 15000\.00 EUR: confirm the amount\.$/,
      );
    });
    expect(again).toHaveAttribute('aria-invalid', 'true');
    expect(form.queryByRole('alert')).not.toBeInTheDocument();

    await app.user.type(again, '20000');
    await app.user.click(form.getByRole('button', { name: c.submit }));
    await c.confirm?.(app.user, /This is a large amount: check it once more\./);
    await waitFor(() => {
      expect(sentBodies(bff, c.request)).toHaveLength(2);
    });
    expect(sentBodies(bff, c.request)[1]).toMatchObject({ confirmLargeAmount: true });
  });
});

describe('a session that says no thresholds (an older BFF)', () => {
  it('when the amount is large, then nothing more is asked', async () => {
    const bff = bffAs(['finance']);
    bff.largeAmount = undefined;
    const [c] = CASES;
    if (c === undefined) throw new Error('no case');
    const { app, form } = await openDialog(c, bff);
    await app.user.type(form.getByLabelText(c.amountLabel), '99999');
    expect(form.queryByLabelText(CONFIRM)).not.toBeInTheDocument();
  });
});
