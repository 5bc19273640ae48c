import {
  CSRF_HEADER,
  CSRF_HEADER_VALUE,
  type Role,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff, makeTransaction, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

const ID = '00000000-0000-4000-8000-000000000001';
const PATH = `/transactions/${ID}`;
const REVIEW = 'POST /api/transactions/:id/drift/review';
const REASON = 'Paydesk had the order declined; the gateway says approved';
/** A reason as rows flagged before it was said in the past tense keep it. */
const OLDER_REASON = 'status declined at Paydesk, approved at the gateway';
const TITLE = 'The gateway contradicted Paydesk’s record';
const SINCE = '2026-11-20T10:15:00.000Z';

function bffAs(
  roles: Role[],
  driftDetails: TransactionDetail['driftDetails'],
  overrides: Partial<TransactionDetail> = {},
) {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles })],
    transactions: [makeTransaction(1, { ...overrides, drift: true, driftDetails })],
  });
}

const driftAlert = async (title = TITLE): Promise<HTMLElement> => {
  const alert = (await screen.findByText(title)).closest('[role="alert"]');
  if (!(alert instanceof HTMLElement)) throw new Error('no drift alert');
  return alert;
};

describe('drift banner and review', () => {
  it('when a later status reply agrees again, then the banner says since when and asks for a review; finance marks it reviewed with a comment, a server refusal is said under the field, and the detail refreshes', async () => {
    const bff = bffAs(['finance'], {
      detectedAt: '2026-11-20T10:00:00.000Z',
      reasons: [REASON],
      agreedSince: SINCE,
    });
    let replies = 0;
    bff.on(REVIEW, () => {
      replies += 1;
      if (replies === 1) {
        return {
          status: 400,
          body: {
            error: {
              code: 'VALIDATION_FAILED',
              message: 'comment: must not contain a card number',
              details: {
                fields: [
                  {
                    path: 'comment',
                    rule: 'card_number',
                    message: 'must not contain a card number',
                  },
                ],
              },
              requestId: 'req-1',
            },
          },
        };
      }
      bff.payments.change(ID, { drift: false, driftDetails: null });
      return { status: 200, body: bff.payments.byId(ID) };
    });
    const app = renderApp(PATH, bff);
    await screen.findByRole('heading', { name: 'Order 900001' });

    const alert = await driftAlert();
    const banner = within(alert);
    expect(banner.getByText(REASON)).toBeInTheDocument();
    expect(banner.getByText(/agree again since/)).toHaveTextContent(
      /Agreeing again does not undo what differed \(a return made twice stays made\): the flag stays until someone checks it and marks the drift reviewed\.$/,
    );
    // Since when they agree, and when the difference was found: two instants, never one.
    expect(
      [...alert.querySelectorAll('time')].map((time) => time.getAttribute('datetime')),
    ).toEqual([SINCE, '2026-11-20T10:00:00.000Z']);
    expect(banner.getByText(/agree again since/)).toHaveTextContent(
      /agree again since .+ \(a later status than the one that found the difference, at .+\)\. Agreeing again/,
    );

    await app.user.click(banner.getByRole('button', { name: 'Mark reviewed' }));
    const dialog = within(await screen.findByRole('dialog', { name: 'Mark the drift reviewed' }));
    const comment = dialog.getByRole('textbox', { name: /Comment/ });

    // Empty: refused in the form, nothing sent.
    await app.user.click(dialog.getByRole('button', { name: 'Mark reviewed' }));
    expect(await dialog.findByText('Say what you checked (up to 255 characters).')).toBeVisible();
    expect(bff.requestsTo('POST', `/api/transactions/${ID}/drift/review`)).toHaveLength(0);

    // The server's refusal naming the comment: under the field, not as an alert.
    await app.user.type(comment, 'checked 4111');
    await app.user.click(dialog.getByRole('button', { name: 'Mark reviewed' }));
    expect(await dialog.findByText('This must not contain a card number.')).toBeVisible();
    expect(dialog.queryByRole('alert')).not.toBeInTheDocument();

    await app.user.clear(comment);
    await app.user.type(comment, 'Checked at the gateway: approved.');
    // Its length is counted as it is typed, as a void's and a return's comments are.
    expect(comment).toHaveAccessibleDescription(
      'Kept in the order’s timeline and the audit log. 33 / 255',
    );
    await app.user.click(dialog.getByRole('button', { name: 'Mark reviewed' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    const sent = bff.requestsTo('POST', `/api/transactions/${ID}/drift/review`);
    expect(sent.map((r) => r.body)).toEqual([
      { comment: 'checked 4111' },
      { comment: 'Checked at the gateway: approved.' },
    ]);
    expect(sent.every((r) => r.headers.get(CSRF_HEADER) === CSRF_HEADER_VALUE)).toBe(true);
    await waitFor(() => {
      expect(screen.queryByText(TITLE)).not.toBeInTheDocument();
    });
    expect(await screen.findByText(/marked reviewed/)).toBeInTheDocument();
  });

  it('when the two sides have not agreed since, then the banner says the gateway contradicted Paydesk and nothing about agreeing; a role that may not review sees no button and is told finance reviews it', async () => {
    renderApp(
      PATH,
      bffAs(['support'], { detectedAt: '2026-11-20T10:00:00.000Z', reasons: [REASON] }),
    );
    const alert = await driftAlert();
    const banner = within(alert);
    expect(banner.getByText(REASON)).toBeInTheDocument();
    expect(banner.queryByText(/agree again/)).not.toBeInTheDocument();
    expect(banner.queryByRole('button', { name: 'Mark reviewed' })).not.toBeInTheDocument();
    expect(alert).toHaveTextContent(
      'Finance checks the order at the gateway and marks the drift reviewed; the timeline keeps what differed.',
    );
  });

  it('when the drift’s details say the two sides agree since the very instant the drift was found, then the banner does not say they agree again: the same reply cannot contradict and agree', async () => {
    const found = '2026-11-27T22:56:35.768Z';
    renderApp(
      PATH,
      bffAs(['finance'], { detectedAt: found, reasons: [REASON], agreedSince: found }),
    );
    const alert = await driftAlert();
    expect(within(alert).getByText(REASON)).toBeInTheDocument();
    expect(alert).not.toHaveTextContent(/agree again/);
  });

  it('when they agree again within the second the drift was found, then the banner names one time and says the same second, not the time twice (QA)', async () => {
    renderApp(
      PATH,
      bffAs(['finance'], {
        detectedAt: '2026-11-28T15:20:16.120Z',
        reasons: [REASON],
        agreedSince: '2026-11-28T15:20:16.870Z',
      }),
    );
    const alert = await driftAlert();
    expect(alert.querySelectorAll('time')).toHaveLength(1);
    expect(within(alert).getByText(/agree again since/)).toHaveTextContent(
      /agree again since .+ \(a later status than the one that found the difference, the same second\)\. Agreeing again/,
    );
  });

  it('when the gateway’s status contradicted Paydesk’s record, then the banner says what Paydesk had recorded, that it now shows the gateway’s figures, and what to do, never that the two do not match now; an older row’s reason is shown as recorded', async () => {
    // Paydesk had the sale approved and captured; the gateway said declined: the page shows the
    // gateway's word, as Paydesk now records it.
    renderApp(
      PATH,
      bffAs(
        ['finance'],
        {
          detectedAt: '2026-11-20T10:00:00.000Z',
          reasons: ['Paydesk had the order approved; the gateway says declined', OLDER_REASON],
          paydesk: { status: 'approved', stage: 'captured', captured: '11.50', returned: '0.00' },
          gateway: { status: 'declined', stage: null, captured: '11.50', returned: '0.00' },
        },
        { status: 'declined' },
      ),
    );
    const alert = await driftAlert();
    const banner = within(alert);
    expect(
      banner.getByText('The gateway’s status differed from what Paydesk had recorded:'),
    ).toBeInTheDocument();
    expect(
      banner.getByText('Paydesk had the order approved; the gateway says declined'),
    ).toBeInTheDocument();
    expect(banner.getByText(OLDER_REASON)).toBeInTheDocument();
    expect(alert).toHaveTextContent(
      'Paydesk now shows the gateway’s record, which is what counts for the money. Check the order at the gateway, then mark the drift reviewed; the timeline keeps what differed.',
    );
    expect(alert).not.toHaveTextContent(/does not match|disagree|holds the money/);
    expect(banner.getByRole('button', { name: 'Mark reviewed' })).toBeInTheDocument();
  });

  it('when the gateway’s status could not be applied (an amount Paydesk cannot hold), then the banner says Paydesk kept its own figures, not that it shows the gateway’s', async () => {
    const reason =
      "the gateway's status shows amount 99,999,999,999,999,999.99, more than Paydesk can hold (90,071,992,547,409.91 at most): not applied; check the order at the gateway";
    renderApp(
      PATH,
      bffAs(['support'], {
        detectedAt: '2026-11-20T10:00:00.000Z',
        reasons: [reason],
        gateway: { status: 'approved', stage: null, amount: '99,999,999,999,999,999.99' },
      }),
    );
    const alert = await driftAlert('Paydesk could not apply the gateway’s status');
    const banner = within(alert);
    expect(banner.getByText(reason)).toBeInTheDocument();
    expect(alert).toHaveTextContent('Paydesk kept its own figures.');
    expect(alert).not.toHaveTextContent(/now shows|contradicted/);
  });
});
