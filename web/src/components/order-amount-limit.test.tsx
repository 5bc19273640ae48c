// The per-order ceiling in the four dialogs that create an order with an amount: above the
// currency's limit (the fake session says 1000000.00, as the BFF's default) the amount field says
// so, as the app writes money, and nothing is sent, confirmed or not; the BFF's own refusal (its limits
// changed since sign-in) shows at the same field. And a decimal comma where the locale's mark is a
// point is answered with a point.
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { bffAs, CASES, openDialog, sentBodies } from '../test/amount-dialogs';

const CONFIRM = /Type the amount again to confirm/;
// Said as the app writes money, with no setting's name staff would not know.
const AT_MOST_EUR_1M = 'At most €1,000,000.00 per order; an administrator can raise this limit.';

describe.each(CASES)('the $name dialog and the per-order limit', (c) => {
  it('when the amount is above the limit, then the amount field says so, nothing more is asked and no request is sent', async () => {
    const bff = bffAs(c.roles);
    const { app, form } = await openDialog(c, bff);
    const amount = form.getByLabelText(c.amountLabel);
    // What went through in QA: one trillion euros.
    await app.user.type(amount, '1000000000000');
    // Confirming it would not help: the confirmation is not asked.
    expect(form.queryByLabelText(CONFIRM)).not.toBeInTheDocument();
    await app.user.click(form.getByRole('button', { name: c.submit }));
    await waitFor(() => {
      expect(amount).toHaveAccessibleDescription(AT_MOST_EUR_1M);
    });
    expect(amount).toHaveAttribute('aria-invalid', 'true');
    expect(form.queryByRole('alert')).not.toBeInTheDocument();
    // Still there as the amount is edited, until it is within the limit.
    await app.user.clear(amount);
    await app.user.type(amount, '1000000.01');
    await waitFor(() => {
      expect(amount).toHaveAccessibleDescription(AT_MOST_EUR_1M);
    });
    await app.user.click(form.getByRole('button', { name: c.submit }));
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    expect(bff.requestsTo(...c.request)).toHaveLength(0);
  });

  it('when the amount is exactly at the limit, then it is sent (confirmed, being large)', async () => {
    const bff = bffAs(c.roles);
    const { app, form } = await openDialog(c, bff);
    const amount = form.getByLabelText(c.amountLabel);
    await app.user.type(amount, '1000000');
    await app.user.type(form.getByLabelText(CONFIRM), '1000000');
    await app.user.click(form.getByRole('button', { name: c.submit }));
    await c.confirm?.(app.user, /This is above €10,000\.00: check the amount once more\./);
    await waitFor(() => {
      expect(sentBodies(bff, c.request)).toHaveLength(1);
    });
    expect(sentBodies(bff, c.request)[0]).toMatchObject({ confirmLargeAmount: true });
    expect(String(sentBodies(bff, c.request)[0]?.amount)).toMatch(/^1000000(\.00)?$/);
  });

  it('when the currency has its own limit, then it applies to that currency alone', async () => {
    const bff = bffAs(c.roles);
    bff.orderAmountLimit = { default: '1000000.00', currencies: { USD: '500.00' } };
    const { app, form } = await openDialog(c, bff);
    const amount = form.getByLabelText(c.amountLabel);
    const currency = form.getByLabelText(/^Currency/);
    await app.user.type(amount, '500.01');
    await app.user.clear(currency);
    await app.user.type(currency, 'usd');
    await app.user.click(form.getByRole('button', { name: c.submit }));
    await waitFor(() => {
      expect(amount).toHaveAccessibleDescription(
        'At most $500.00 per order; an administrator can raise this limit.',
      );
    });
    expect(bff.requestsTo(...c.request)).toHaveLength(0);
    await app.user.clear(currency);
    await app.user.type(currency, 'EUR');
    await app.user.click(form.getByRole('button', { name: c.submit }));
    await c.confirm?.(app.user);
    await waitFor(() => {
      expect(sentBodies(bff, c.request)).toHaveLength(1);
    });
  });

  it('when the BFF refuses the amount (its limits changed since sign-in), then its words show at the amount field', async () => {
    const bff = bffAs(c.roles);
    bff.orderAmountLimitEnforced = { default: '500.00', currencies: {} };
    const { app } = await openDialog(c, bff);
    let form = within(screen.getByRole('dialog'));
    await app.user.type(form.getByLabelText(c.amountLabel), '600');
    await app.user.click(form.getByRole('button', { name: c.submit }));
    await c.confirm?.(app.user);
    await waitFor(() => {
      expect(sentBodies(bff, c.request)).toHaveLength(1);
    });
    form = within(
      await screen.findByRole('dialog', { name: new RegExp(c.button.split(' ')[0] ?? '') }),
    );
    const amount = await form.findByLabelText(c.amountLabel);
    await waitFor(() => {
      expect(amount).toHaveAccessibleDescription(
        'At most EUR 500.00 per order; an administrator can raise the limit.',
      );
    });
    expect(amount).toHaveAttribute('aria-invalid', 'true');
    expect(form.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('when the amount is typed with a decimal comma, then the field says to use a point and nothing is sent', async () => {
    const bff = bffAs(c.roles);
    const { app, form } = await openDialog(c, bff);
    const amount = form.getByLabelText(c.amountLabel);
    await app.user.type(amount, '12,50');
    await app.user.click(form.getByRole('button', { name: c.submit }));
    await waitFor(() => {
      expect(amount).toHaveAccessibleDescription('Use a point for decimals: 12.50.');
    });
    expect(bff.requestsTo(...c.request)).toHaveLength(0);
    await app.user.clear(amount);
    await app.user.type(amount, '12.50');
    await app.user.click(form.getByRole('button', { name: c.submit }));
    await c.confirm?.(app.user);
    await waitFor(() => {
      expect(sentBodies(bff, c.request)).toHaveLength(1);
    });
  });
});

describe('a session that says no limits (an older BFF)', () => {
  it('when the amount is above the default limit, then nothing is refused here (the BFF decides)', async () => {
    const bff = bffAs(['finance']);
    bff.orderAmountLimit = undefined;
    const [c] = CASES;
    if (c === undefined) throw new Error('no case');
    const { app, form } = await openDialog(c, bff);
    const amount = form.getByLabelText(c.amountLabel);
    await app.user.type(amount, '2000000');
    expect(form.getByLabelText(CONFIRM)).toBeInTheDocument();
    await app.user.click(form.getByRole('button', { name: c.submit }));
    await waitFor(() => {
      expect(form.getByLabelText(CONFIRM)).toHaveAccessibleDescription(
        'Above €10,000.00, type the amount again to confirm it.',
      );
    });
    expect(amount).not.toHaveAttribute('aria-invalid', 'true');
  });
});
