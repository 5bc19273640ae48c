// The fat-finger guard of the four dialogs that create an order with an amount: above the
// currency's threshold (the fake session says 10000.00) the amount is typed twice, and the
// request then says `confirmLargeAmount: true`; the fake BFF refuses it otherwise, as the BFF.
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { bffAs, CASES, openDialog, sentBodies } from '../test/amount-dialogs';

const CONFIRM = /Type the amount again to confirm/;

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
    // Why it is there, said from the start; nothing is wrong before anything is typed or sent.
    expect(again).toHaveAccessibleDescription(
      'Above €10,000.00, type the amount again to confirm it.',
    );
    expect(again).toHaveAttribute('aria-invalid', 'false');

    await app.user.click(form.getByRole('button', { name: c.submit }));
    await waitFor(() => {
      expect(again).toHaveAccessibleDescription(
        'Above €10,000.00, type the amount again to confirm it.',
      );
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

  it('when the amount is typed again with thousands separators, then nothing is said while typing; once the field is left, the example obeys the rule', async () => {
    const bff = bffAs(c.roles);
    const { app, form } = await openDialog(c, bff);
    await app.user.type(form.getByLabelText(c.amountLabel), '25000');
    const again = form.getByLabelText(CONFIRM);
    // On the way to the amount ('2', '25', …) nothing is wrong yet.
    await app.user.type(again, '25,000.00');
    expect(again).toHaveAttribute('aria-invalid', 'false');
    expect(again).toHaveAccessibleDescription(
      'Above €10,000.00, type the amount again to confirm it.',
    );
    await app.user.tab();
    expect(again).toHaveAttribute('aria-invalid', 'true');
    expect(again).toHaveAccessibleDescription(
      'Type the amount as above, without thousands separators, e.g. 25000.00.',
    );
    // Judged as typed from then on.
    await app.user.clear(again);
    await app.user.type(again, '25000.00');
    expect(again).toHaveAttribute('aria-invalid', 'false');
    await app.user.clear(again);
    await app.user.type(again, '2500');
    expect(again).toHaveAccessibleDescription('You typed €2,500.00 here but €25,000.00 above.');
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
