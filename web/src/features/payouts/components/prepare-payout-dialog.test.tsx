// Preparing a payout: a refused submit takes the keyboard to the first field that says what is
// wrong; the held payout's toast names the time zone of its lapse; a half-typed payout is not lost
// to a reload without the browser asking.
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff, makePayout, makeUser } from '../../../test/fake-bff';
import { openPrepareDialog, SELLER_SETTLEMENT, typeCardPayout } from '../../../test/prepare-payout';
import { renderApp } from '../../../test/render-app';
import { formatDateAndTime, formatDateTime } from '../../../lib/format';

function bff() {
  return new FakeBff({
    signedInAs: 'olga@example.com',
    users: [makeUser({ email: 'olga@example.com', name: 'Olga Ops', roles: ['ops'] })],
    payouts: [],
  });
}

const SUBMIT = 'Check and submit for approval';

/** Whether a `beforeunload` now would make the browser ask before leaving. */
function leavingAsks(): boolean {
  const event = new Event('beforeunload', { cancelable: true });
  window.dispatchEvent(event);
  return event.defaultPrevented;
}

describe('a refused submit', () => {
  it('when nothing is filled in, then the card number, the first field, takes the focus and says what to enter as its neighbours do', async () => {
    const app = renderApp('/payouts', bff());
    const dialog = await openPrepareDialog(app.user);
    await app.user.click(dialog.getByRole('button', { name: SUBMIT }));
    const cardNumber = dialog.getByLabelText(/Card number/);
    await waitFor(() => {
      expect(cardNumber).toHaveFocus();
    });
    expect(cardNumber).toHaveAccessibleDescription('Enter the card number (13 to 19 digits).');
    expect(dialog.queryByText('This must be 13-19 digits.')).toBeNull();
    expect(dialog.getByText('Enter the name as printed on the card.')).toBeInTheDocument();
  });

  it('when the first fields are good, then the first refused one takes the focus, again on each submit', async () => {
    const app = renderApp('/payouts', bff());
    const dialog = await openPrepareDialog(app.user);
    await app.user.type(dialog.getByLabelText(/Card number/), '4111111111111111');
    await app.user.type(dialog.getByLabelText(/Cardholder name/), 'JANE DOE');
    await app.user.click(dialog.getByRole('button', { name: SUBMIT }));
    const month = dialog.getByLabelText(/Expiry month/);
    await waitFor(() => {
      expect(month).toHaveFocus();
    });
    // Moved away and sent again unchanged: the focus goes back.
    dialog.getByRole('button', { name: SUBMIT }).focus();
    await app.user.click(dialog.getByRole('button', { name: SUBMIT }));
    await waitFor(() => {
      expect(month).toHaveFocus();
    });
    // A number typed wrong is said by its rule, not as missing.
    await app.user.clear(dialog.getByLabelText(/Card number/));
    await app.user.type(dialog.getByLabelText(/Card number/), '4111');
    await app.user.click(dialog.getByRole('button', { name: SUBMIT }));
    await waitFor(() => {
      expect(dialog.getByLabelText(/Card number/)).toHaveFocus();
    });
    expect(dialog.getByLabelText(/Card number/)).not.toHaveAccessibleDescription(
      'Enter the card number (13 to 19 digits).',
    );
  });
});

describe('a held single payout', () => {
  it('when it is prepared, then the toast says when it lapses with the time zone named', async () => {
    const server = bff();
    const app = renderApp('/payouts', server);
    const dialog = await openPrepareDialog(app.user);
    await app.user.click(dialog.getByRole('radio', { name: /^Single/ }));
    await typeCardPayout(app.user, dialog, SELLER_SETTLEMENT);
    await app.user.click(dialog.getByRole('button', { name: 'Submit for approval' }));
    const expiresAt = await waitFor(() => {
      const at = server.payouts.payouts[0]?.expiresAt;
      expect(at).toBeTruthy();
      return at ?? '';
    });
    const zoned = `it lapses ${formatDateTime(expiresAt)} ${formatDateAndTime(expiresAt).zone} if not approved`;
    expect(
      await screen.findByText(new RegExp(zoned.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))),
    ).toBeInTheDocument();
  });
});

describe('a payout like one waiting', () => {
  it('when one of the same amount to the same destination waits for approval, then the toast warns the preparer of a possible duplicate, naming it', async () => {
    const server = bff();
    // Otto's payout of €31.41 to the same card waits for approval.
    const waiting = makePayout(1, {
      amount: '31.41',
      preparedBy: { id: 'u-otto', email: 'otto@example.com' },
    });
    server.payouts.payouts = [waiting];
    const app = renderApp('/payouts', server);
    const dialog = await openPrepareDialog(app.user);
    await typeCardPayout(app.user, dialog, SELLER_SETTLEMENT);
    await app.user.click(dialog.getByRole('button', { name: SUBMIT }));
    const said = await screen.findByText(
      `Another payout of the same amount to the same destination is waiting: payout ${waiting.id.slice(0, 8)}. Check this one is not a duplicate.`,
      { exact: false },
    );
    const alert = said.closest('.MuiAlert-root');
    expect(alert).toHaveClass('MuiAlert-colorWarning');
    // What preparing did is still said.
    expect(alert).toHaveTextContent('Payout checked; it waits for a second ops user.');
  });

  it.each([
    ['a held single payout', true],
    ['a two-step payout', false],
  ])(
    'when one of the same amount to the same destination was judged not applied and may still be paid late, then the toast of %s cautions the preparer of it once, as a warning (QA: a held one said only its lapse)',
    async (_what, single) => {
      const server = bff();
      const late = makePayout(1, {
        amount: '31.41',
        state: 'failed',
        errorCode: 'NOT_APPLIED',
        decidedBy: { id: 'u-pia', email: 'pia@example.com' },
        decidedAt: '2026-11-20T09:30:00.000Z',
      });
      server.payouts.payouts = [late];
      const app = renderApp('/payouts', server);
      const dialog = await openPrepareDialog(app.user);
      if (single) await app.user.click(dialog.getByRole('radio', { name: /^Single/ }));
      await typeCardPayout(app.user, dialog, SELLER_SETTLEMENT);
      await app.user.click(
        dialog.getByRole('button', { name: single ? 'Submit for approval' : SUBMIT }),
      );
      const said = await screen.findByText(
        / of the same amount to the same destination was judged not applied, and the gateway may still pay late: check its status before this one is approved, or it may be paid twice\./,
      );
      const alert = said.closest('.MuiAlert-root');
      expect(alert).toHaveClass('MuiAlert-colorWarning');
      expect(alert?.textContent.match(/judged not applied/g)).toHaveLength(1);
      expect(alert).toHaveTextContent(
        single ? 'The payout is held until a second ops user approves it' : 'Payout checked',
      );
    },
  );

  it('when none like it waits, then the toast is a plain success', async () => {
    const server = bff();
    server.payouts.payouts = [makePayout(1, { amount: '31.42' })];
    const app = renderApp('/payouts', server);
    const dialog = await openPrepareDialog(app.user);
    await typeCardPayout(app.user, dialog, SELLER_SETTLEMENT);
    await app.user.click(dialog.getByRole('button', { name: SUBMIT }));
    const said = await screen.findByText('Payout checked; it waits for a second ops user.');
    expect(said.closest('.MuiAlert-root')).toHaveClass('MuiAlert-colorSuccess');
    expect(screen.queryByText(/not a duplicate/)).not.toBeInTheDocument();
  });
});

describe('leaving the page', () => {
  it('when something is typed, then a reload or tab close asks first; once the dialog is cancelled it no longer does', async () => {
    const app = renderApp('/payouts', bff());
    const dialog = await openPrepareDialog(app.user);
    expect(leavingAsks()).toBe(false);
    await app.user.type(dialog.getByLabelText(/^Amount/), '10');
    expect(leavingAsks()).toBe(true);
    await app.user.click(dialog.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).toBeNull();
    });
    expect(leavingAsks()).toBe(false);
  });
});
