import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  expectCurrencyCheckedWithEndpoint,
  expectRefusedBeforeConfirm,
  knownCardRefsBff,
  refuseEurBeforeConfirm,
  SUBSCRIPTION,
} from '../../../test/known-card-refs';
import { renderApp } from '../../../test/render-app';

/**
 * Opens the new subscription on card-ref-1 (as from Cards), waits for the Cards list to say where
 * the reference was made (unless `known` is false), and fills all but the currency and endpoint.
 */
async function openPlan(app: ReturnType<typeof renderApp>, known = true) {
  const dialog = within(await screen.findByRole('dialog', { name: 'New subscription' }));
  if (known) {
    await waitFor(() => {
      expect(dialog.getByLabelText(/Card reference id/)).toHaveAccessibleDescription(
        'Made on endpoint 1002 · USD',
      );
    });
  }
  await app.user.type(dialog.getByLabelText(/Amount per charge/), '5');
  await app.user.type(dialog.getByLabelText(/Description/), 'Monthly membership');
  await app.user.type(dialog.getByLabelText(/Customer e-mail/), 'ann@example.com');
  return dialog;
}

const PATH = '/subscriptions?create=1&ref=card-ref-1';

/** The refusal of a plan on card-ref-1 (made on endpoint 1002, USD) in EUR there. */
const CURRENCY_REFUSED =
  'Card reference card-ref-1 was made on endpoint 1002, which takes USD: set up the subscription in USD.';

describe('a subscription on a card reference Paydesk knows', () => {
  it('when the reference is given or typed, then the currency is its own and the field says where it was made, until the user types a currency', async () => {
    const app = renderApp(PATH, knownCardRefsBff());
    const dialog = await openPlan(app);
    const ref = dialog.getByLabelText(/Card reference id/);
    const currency = dialog.getByLabelText(/Currency/);
    expect(currency).toHaveValue('USD');
    // Typed: the currency follows the reference.
    await app.user.clear(ref);
    await app.user.type(ref, 'card-ref-2');
    expect(ref).toHaveAccessibleDescription('Made on endpoint 1001 · EUR');
    expect(currency).toHaveValue('EUR');
    // A reference the (whole) list does not hold is said to be unseen (QA: found out only after
    // the confirm step), and leaves the currency.
    await app.user.type(ref, 'x');
    expect(ref).toHaveAccessibleDescription(
      'No order Paydesk knows carries card reference card-ref-2x: check it. The gateway refuses it if it stores no card under it.',
    );
    expect(currency).toHaveValue('EUR');
    // Once the user chose the currency, another reference leaves it.
    await app.user.clear(currency);
    await app.user.type(currency, 'USD');
    await app.user.clear(ref);
    await app.user.type(ref, 'card-ref-2');
    expect(currency).toHaveValue('USD');
  });

  it('when the endpoint is left empty, then its choice names the reference’s endpoint and the plan is sent in its currency without one', async () => {
    const bff = knownCardRefsBff();
    const app = renderApp(PATH, bff);
    const dialog = await openPlan(app);
    const endpoint = dialog.getByLabelText(/^Endpoint/);
    expect(within(endpoint).getByRole('option', { selected: true })).toHaveTextContent(
      'The card reference’s endpoint (1002)',
    );
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the subscription' }));
    // The confirm step says where the plan goes: the reference's own endpoint.
    expect(confirm.getByText(/“Monthly membership” on endpoint 1002 · receipts to/)).toBeVisible();
    await app.user.click(confirm.getByRole('button', { name: /^Create: \$5\.00 every month/ }));
    expect(await screen.findByRole('heading', { name: 'Monthly membership' })).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/subscriptions')[0]!.body).toEqual({
      cardRefId: 'card-ref-1',
      amount: '5.00',
      currency: 'USD',
      period: 'month',
      interval: 1,
      orderDesc: 'Monthly membership',
      email: 'ann@example.com',
    });
  });

  it('when another plain endpoint is chosen, then the endpoint field says where the reference was made and what to do, before the confirm step, and nothing is sent', async () => {
    const bff = knownCardRefsBff();
    const app = renderApp(PATH, bff);
    const dialog = await openPlan(app);
    const endpoint = dialog.getByLabelText(/^Endpoint/);
    await app.user.selectOptions(endpoint, '1001');
    await expectRefusedBeforeConfirm(
      app,
      bff,
      dialog,
      SUBSCRIPTION,
      endpoint,
      'Card reference card-ref-1 was made on endpoint 1002, which takes USD, and the gateway charges it only there: choose the card reference’s endpoint and set up the subscription in USD.',
    );
    // Its own endpoint, chosen, is taken; so is a group (the gateway decides).
    await app.user.selectOptions(endpoint, '1002');
    await waitFor(() => {
      expect(endpoint).toHaveAttribute('aria-invalid', 'false');
    });
    await app.user.selectOptions(endpoint, '2001');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the subscription' }));
    expect(confirm.getByText(/through endpoint group 2001 · receipts to/)).toBeVisible();
    await app.user.click(confirm.getByRole('button', { name: /^Create: \$5\.00/ }));
    expect(await screen.findByRole('heading', { name: 'Monthly membership' })).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/subscriptions')[0]!.body).toMatchObject({
      currency: 'USD',
      endpointId: '2001',
    });
  });

  it('when the currency is one the reference’s endpoint does not take, then the currency field says which it takes, before the confirm step, and nothing is sent', async () => {
    const bff = knownCardRefsBff();
    const app = renderApp(PATH, bff);
    const dialog = await openPlan(app);
    // The endpoint choices that do not take it are marked.
    const currency = await refuseEurBeforeConfirm(app, bff, dialog, SUBSCRIPTION, CURRENCY_REFUSED);
    // In its currency the plan goes on.
    await app.user.clear(currency);
    await app.user.type(currency, 'usd');
    expect(currency).toHaveAccessibleDescription('ISO code');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    expect(
      await screen.findByRole('dialog', { name: 'Confirm the subscription' }),
    ).toBeInTheDocument();
  });

  it('when the currency was refused and only the endpoint is changed to one that may take it, then the currency’s refusal goes at once, and comes back with the reference’s endpoint', async () => {
    const bff = knownCardRefsBff();
    const app = renderApp(PATH, bff);
    const dialog = await openPlan(app);
    await refuseEurBeforeConfirm(app, bff, dialog, SUBSCRIPTION, CURRENCY_REFUSED);
    await expectCurrencyCheckedWithEndpoint(app, dialog, CURRENCY_REFUSED);
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    expect(
      await screen.findByRole('dialog', { name: 'Confirm the subscription' }),
    ).toHaveTextContent('through endpoint group 2001');
  });

  it('when the Cards list cannot be had, then nothing is refused before sending, and the BFF’s refusal of the currency comes back beside the field', async () => {
    const bff = knownCardRefsBff().on('GET /api/cards', () => ({
      status: 503,
      body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'x', requestId: 'r' } },
    }));
    const app = renderApp(PATH, bff);
    const dialog = await openPlan(app, false);
    const currency = dialog.getByLabelText(/Currency/);
    expect(currency).toHaveValue('EUR');
    expect(dialog.getByLabelText(/Card reference id/)).not.toHaveAccessibleDescription(/Made on/);
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the subscription' }));
    await app.user.click(confirm.getByRole('button', { name: /^Create: €5\.00/ }));
    const back = within(await screen.findByRole('dialog', { name: 'New subscription' }));
    await waitFor(() => {
      expect(back.getByLabelText(/Currency/)).toHaveAccessibleDescription(
        'Card reference card-ref-1 was made on endpoint 1002, which takes USD, not EUR.',
      );
    });
    expect(bff.subscriptions.subscriptions).toHaveLength(0);
  });

  it('when the session does not say the endpoints (an older BFF), then the endpoint is typed, nothing is refused before sending, and the BFF’s refusal comes back beside the field', async () => {
    const message =
      'card reference card-ref-1 was made on endpoint 1002, not on endpoint 1001: set up the subscription on endpoint 1002 in USD';
    const bff = knownCardRefsBff(null).on('POST /api/subscriptions', () => ({
      status: 400,
      body: {
        error: {
          code: 'VALIDATION_FAILED',
          message: `cardRefId: ${message}`,
          requestId: 'r-400',
          details: { fields: [{ path: 'cardRefId', rule: 'card_ref_endpoint', message }] },
        },
      },
    }));
    const app = renderApp(PATH, bff);
    const dialog = await openPlan(app);
    const endpoint = dialog.getByLabelText(/^Endpoint/);
    expect(endpoint.tagName).toBe('INPUT');
    expect(endpoint).toHaveAccessibleDescription(
      'Leave empty for the card reference’s endpoint (1002).',
    );
    await app.user.type(endpoint, '1001');
    await app.user.click(dialog.getByRole('button', { name: 'Continue' }));
    const confirm = within(await screen.findByRole('dialog', { name: 'Confirm the subscription' }));
    await app.user.click(confirm.getByRole('button', { name: /^Create: \$5\.00/ }));
    const back = within(await screen.findByRole('dialog', { name: 'New subscription' }));
    await waitFor(() => {
      expect(back.getByLabelText(/Card reference id/)).toHaveAccessibleDescription(
        'Card reference card-ref-1 was made on endpoint 1002, not on endpoint 1001: set up the subscription on endpoint 1002 in USD.',
      );
    });
  });
});
