import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { AuditListItem, AuditRow, AuditVerifyResponse } from '@paydesk/shared/api';
import { FakeBff, makeAuditRow, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';
import { screenWidth } from '../../../test/screen-width';
import { SCREENS } from '../../shell/navigation';

const lastListQuery = (bff: FakeBff) =>
  Object.fromEntries(bff.requestsTo('GET', '/api/audit').at(-1)!.query);
const verifyQueries = (bff: FakeBff) =>
  bff.requestsTo('GET', '/api/audit/verify').map((r) => Object.fromEntries(r.query));
const hash120 = `${'0'.repeat(62)}78`;

/**
 * The BFF's verify as it answers: the chain intact up to the log's last row; a person's check
 * (explicit) written as a row of its own (a verification has no target), the page's own
 * (automatic) not, unless `everyCheck` (each verification reads the head, then writes its row).
 */
function recordExplicitChecks(bff: FakeBff, { everyCheck = false } = {}) {
  bff.on('GET /api/audit/verify', (request) => {
    const head = bff.audit.at(-1)!;
    const automatic = !everyCheck && request.query.get('check') === 'automatic';
    const recordedSeq = head.seq + 1;
    if (!automatic)
      bff.audit.push(makeAuditRow(recordedSeq, { action: 'audit.verify', target: null }));
    const reply: AuditVerifyResponse = {
      ok: true,
      rowsChecked: head.seq,
      verifiedUpToSeq: head.seq,
      firstBrokenSeq: null,
      reason: null,
      head: { seq: head.seq, hash: head.hash, createdAt: head.at },
      ...(automatic ? {} : { recordedSeq }),
    };
    return { status: 200, body: reply };
  });
}

describe('audit log screen', () => {
  it('when the first page is loading, then a loading state is shown', async () => {
    renderApp(
      '/audit',
      new FakeBff().on('GET /api/audit', () => 'hang'),
    );
    expect(await screen.findByText('Loading the audit log…')).toBeInTheDocument();
  });

  it('when the log is empty, then the empty state says so and the chain is verified with no rows', async () => {
    const bff = new FakeBff({ audit: [] });
    renderApp('/audit', bff);
    expect(await screen.findByText('The audit log is empty')).toBeInTheDocument();
    expect(await screen.findByText('Chain verified (no rows yet)')).toBeInTheDocument();
  });

  it('when filters match nothing, then the empty state talks about the filters', async () => {
    renderApp('/audit?actor=nobody%40example.com', new FakeBff());
    expect(await screen.findByText('No rows match these filters')).toBeInTheDocument();
  });

  it('when the list fails, then an error state with retry is shown', async () => {
    renderApp(
      '/audit',
      new FakeBff().on('GET /api/audit', () => ({
        status: 500,
        body: { error: { code: 'INTERNAL', message: 'x', requestId: 'req-audit' } },
      })),
    );
    expect(await screen.findByText('Could not load the audit log')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it('when the user is not an auditor, then the screen is forbidden and nothing is requested', async () => {
    const bff = new FakeBff({ signedInAs: 'sam@example.com' });
    renderApp('/audit', bff);
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Not available to your roles' }),
    ).toBeInTheDocument();
    expect(document.title).toBe('Not available to your roles · Paydesk');
    expect(bff.requestsTo('GET', '/api/audit')).toHaveLength(0);
  });

  it('when an administrator without the auditor role opens it, then it says it is another role’s screen and that they can give themselves the role in Users, not to ask an administrator', async () => {
    const bff = new FakeBff({
      signedInAs: 'ada@example.com',
      users: [makeUser({ email: 'ada@example.com', name: 'Ada', roles: ['admin'] })],
    });
    const app = renderApp('/audit', bff);
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Not available to your roles' }),
    ).toBeInTheDocument();
    expect(
      screen.getByText(
        /Your roles do not give access to the audit log: it is another role’s screen\./,
      ),
    ).toHaveTextContent('As an administrator you can give yourself that role in Users.');
    expect(screen.queryByText(/Ask an administrator/)).not.toBeInTheDocument();
    await app.user.click(within(screen.getByRole('main')).getByRole('link', { name: 'Users' }));
    await waitFor(() => {
      expect(app.location()).toBe('/users');
    });
    expect(bff.requestsTo('GET', '/api/audit')).toHaveLength(0);
  });

  it('when a row has long details, then they start clamped and "Show all" expands them', async () => {
    const body = 'x'.repeat(300);
    const bff = new FakeBff({
      audit: [makeAuditRow(2, { summary: { body } }), makeAuditRow(1)],
    });
    const app = renderApp('/audit', bff);
    const toggle = await screen.findByRole('button', { name: "Show all of row 2's details" });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.getByText(`Request: ${body}`)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: "Show all of row 1's details" })).toBeNull();
    await app.user.click(toggle);
    expect(screen.getByRole('button', { name: "Show less of row 2's details" })).toHaveAttribute(
      'aria-expanded',
      'true',
    );
  });

  it('when a row’s details hold nulls and nested objects, then nulls are left out and objects read as words, not JSON', async () => {
    const bff = new FakeBff({
      audit: [
        makeAuditRow(1, {
          summary: {
            orderid: null,
            errorCode: null,
            amount: '5.00',
            destination: { kind: 'card', label: 'Visa •••• 1111' },
            limits: { daily: '100.00', monthly: null },
          },
        }),
      ],
    });
    renderApp('/audit', bff);
    expect(
      await screen.findByText('Amount: 5.00 · Destination: Visa •••• 1111 · Limits: daily 100.00'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/null|\{/)).toBeNull();
  });

  it('when a row’s details have camelCase keys, then known ones read as labels and others as words; values stay as recorded (true/false as Yes/No)', async () => {
    const bff = new FakeBff({
      audit: [
        makeAuditRow(1, {
          action: 'transaction.return',
          summary: {
            operation: 'return',
            body: { amount: '1.00', reasonCode: 'customer_request' },
            idempotencyKey: 'demo-key-1',
            replayed: false,
            gatewaySerial: 'serial-1',
            someNewFact: 'x',
          },
        }),
      ],
    });
    renderApp('/audit', bff);
    expect(
      await screen.findByText(
        'Operation: return · Request: amount 1.00, reason code customer_request · Idempotency key: demo-key-1 · Replayed (stored reply): No · Gateway serial: serial-1 · Some new fact: x',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/idempotencyKey|replayed:|reasonCode|someNewFact/)).toBeNull();
  });

  it('when a row’s target names a record, then the Target says it in words (kind, the start of its id, the gateway’s order beside it where known) linked to its page, with the stored target as its tooltip and in the row’s expanded details; one that names nothing shows as stored', async () => {
    const tx = '0f1e2d3c-4b5a-4697-8877-665544332211';
    const payout = '1a2b3c4d-0000-4000-8000-000000000001';
    const link = '1a2b3c4d-0000-4000-8000-000000000002';
    const plan = '1a2b3c4d-0000-4000-8000-000000000003';
    const gone = '1a2b3c4d-0000-4000-8000-000000000004';
    const rows: AuditListItem[] = [
      {
        ...makeAuditRow(7, { target: `transaction:${tx}` }),
        targetRef: { kind: 'transaction', id: tx, label: '9000123', orderid: '9000123' },
      },
      {
        ...makeAuditRow(6, { target: `payout:${payout}` }),
        targetRef: { kind: 'payout', id: payout, label: '9000200', orderid: '9000200' },
      },
      {
        // not at the gateway yet: no order beside it
        ...makeAuditRow(5, { target: `link:${link}` }),
        targetRef: { kind: 'link', id: link, label: 'pd-link-2', orderid: null },
      },
      {
        ...makeAuditRow(4, { target: `subscription:${plan}` }),
        targetRef: { kind: 'subscription', id: plan, label: '223706339', orderid: '223706339' },
      },
      {
        ...makeAuditRow(3, { target: 'user:u-2' }),
        targetRef: { kind: 'user', id: 'u-2', label: 'sam@example.com', orderid: null },
      },
      { ...makeAuditRow(2, { target: `transaction:${gone}` }), targetRef: null },
    ];
    const audit: AuditRow[] = rows;
    const app = renderApp('/audit', new FakeBff({ audit }));
    const table = await screen.findByRole('table', { name: 'Audit log' });
    const [, ...body] = within(table).getAllByRole('row');
    const cases = [
      ['Transaction 0f1e2d3c…', ' · order 9000123', `/transactions/${tx}`, `transaction:${tx}`],
      ['Payout 1a2b3c4d…', ' · order 9000200', `/payouts/${payout}`, `payout:${payout}`],
      ['Payment link 1a2b3c4d…', '', `/payment-links/${link}`, `link:${link}`],
      [
        'Subscription 1a2b3c4d…',
        ' · recurring payment 223706339',
        `/subscriptions/${plan}`,
        `subscription:${plan}`,
      ],
      ['User sam@example.com', '', '/users?user=u-2', 'user:u-2'],
    ] as const;
    for (const [i, [words, gateway, href, raw]] of cases.entries()) {
      const row = body[i]!;
      const seq = String(7 - i);
      const anchor = within(row).getByRole('link', { name: words });
      expect(anchor).toHaveAttribute('href', href);
      const said = anchor.closest('[title]')!;
      expect(said).toHaveAttribute('title', raw);
      expect(said).toHaveTextContent(`${words}${gateway}`, { normalizeWhitespace: false });
      expect(within(row).queryByText(raw)).toBeNull();
      // Without a mouse: the details' toggle (a button, so also Enter on the keyboard) shows it.
      const toggle = within(row).getByRole('button', { name: `Show all of row ${seq}'s details` });
      toggle.focus();
      await app.user.keyboard('{Enter}');
      expect(toggle).toHaveAttribute('aria-expanded', 'true');
      expect(within(row).getByText(raw)).toBeInTheDocument();
      expect(within(row).getByText(/Stored target/)).toBeInTheDocument();
    }
    await app.user.click(screen.getByRole('button', { name: 'Copy stored target of row 7' }));
    expect(await navigator.clipboard.readText()).toBe(`transaction:${tx}`);
    // A target that no longer resolves is evidence all the same: shown as stored, with no link,
    // and nothing more to show in its details.
    const last = body[5]!;
    expect(within(last).getByText(`transaction:${gone}`)).toBeInTheDocument();
    expect(within(last).queryByRole('link')).toBeNull();
    expect(within(last).queryByRole('button', { name: /Show all/ })).toBeNull();
    expect(within(last).queryByText(/Stored target/)).toBeNull();
  });

  it('when a user target is followed, then the users list opens on that user’s row, selected, in view and focused', async () => {
    const scrolled = vi.fn();
    Element.prototype.scrollIntoView = scrolled;
    try {
      const audit: AuditListItem[] = [
        {
          ...makeAuditRow(1, { target: 'user:u-sam' }),
          targetRef: { kind: 'user', id: 'u-sam', label: 'sam@example.com', orderid: null },
        },
      ];
      const app = renderApp('/audit', new FakeBff({ audit }));
      await app.user.click(await screen.findByRole('link', { name: 'User sam@example.com' }));
      await waitFor(() => {
        expect(app.location()).toBe('/users?user=u-sam');
      });
      const table = await screen.findByRole('table', { name: 'Users' });
      const row = within(table)
        .getAllByRole('row')
        .find((r) => r.textContent.includes('sam@example.com'))!;
      expect(row).toHaveAttribute('aria-current', 'true');
      expect(row).toHaveClass('Mui-selected');
      await waitFor(() => {
        expect(row).toHaveFocus();
      });
      expect(scrolled).toHaveBeenCalledTimes(1);
    } finally {
      // jsdom has none: leave the prototype as it was
      Reflect.deleteProperty(Element.prototype, 'scrollIntoView');
    }
  });

  it('when the reader’s roles do not open a target’s page, then it is said in the same words as plain text', async () => {
    const payout = '1a2b3c4d-0000-4000-8000-000000000001';
    const audit: AuditListItem[] = [
      {
        ...makeAuditRow(2, { target: `payout:${payout}` }),
        targetRef: { kind: 'payout', id: payout, label: '9000200', orderid: '9000200' },
      },
      {
        ...makeAuditRow(1, { target: 'user:u-2' }),
        targetRef: { kind: 'user', id: 'u-2', label: 'sam@example.com', orderid: null },
      },
    ];
    const users = [
      makeUser({ email: 'admin@example.com', roles: ['admin', 'auditor'] }),
      // An auditor as the BFF would let one be; the screens are given fewer for the test.
      makeUser({ email: 'ann@example.com', roles: ['auditor'] }),
    ];
    const original = { payouts: SCREENS.payouts.roles, users: SCREENS.users.roles };
    Object.assign(SCREENS.payouts, { roles: ['ops'] });
    Object.assign(SCREENS.users, { roles: ['admin'] });
    try {
      renderApp('/audit', new FakeBff({ audit, users, signedInAs: 'ann@example.com' }));
      const table = await screen.findByRole('table', { name: 'Audit log' });
      const [, payoutRow, userRow] = within(table).getAllByRole('row');
      expect(within(payoutRow!).queryByRole('link')).toBeNull();
      expect(within(payoutRow!).getByTitle(`payout:${payout}`)).toHaveTextContent(
        'Payout 1a2b3c4d… · order 9000200',
      );
      expect(within(userRow!).queryByRole('link')).toBeNull();
      expect(within(userRow!).getByTitle('user:u-2')).toHaveTextContent('User sam@example.com');
    } finally {
      Object.assign(SCREENS.payouts, { roles: original.payouts });
      Object.assign(SCREENS.users, { roles: original.users });
    }
  });

  it('when a row’s target is a card reference or a sign-in to an e-mail no user has, then the Target shows the reference (linked to Cards for roles that open it) or the e-mail, and the stored target is in the expanded details', async () => {
    const audit: AuditRow[] = [
      makeAuditRow(2, { action: 'card.info', target: 'card-ref:910000022' }),
      makeAuditRow(1, {
        action: 'session.login',
        outcome: 'refused',
        target: 'account:nobody@example.com',
      }),
    ];
    const rowsOf = async () => {
      const table = await screen.findByRole('table', { name: 'Audit log' });
      return within(table).getAllByRole('row').slice(1);
    };
    const users = [
      makeUser({ email: 'admin@example.com', roles: ['admin', 'auditor'] }),
      makeUser({ email: 'sue@example.com', roles: ['support', 'auditor'] }),
    ];
    // Support opens Cards: the reference links there, filled in.
    const first = renderApp('/audit', new FakeBff({ audit, users, signedInAs: 'sue@example.com' }));
    const [cardRow, signInRow] = await rowsOf();
    expect(within(cardRow!).getByRole('link', { name: '910000022' })).toHaveAttribute(
      'href',
      '/cards?ref=910000022',
    );
    expect(within(cardRow!).getByTitle('card-ref:910000022')).toHaveTextContent(
      'Card reference 910000022',
    );
    expect(within(cardRow!).queryByText('card-ref:910000022')).toBeNull();
    expect(within(signInRow!).getByTitle('account:nobody@example.com')).toHaveTextContent(
      'Sign-in e-mail (no user) nobody@example.com',
    );
    expect(within(signInRow!).queryByRole('link')).toBeNull();
    expect(within(signInRow!).queryByText('account:nobody@example.com')).toBeNull();
    for (const [row, seq, raw] of [
      [cardRow!, '2', 'card-ref:910000022'],
      [signInRow!, '1', 'account:nobody@example.com'],
    ] as const) {
      await first.user.click(
        within(row).getByRole('button', { name: `Show all of row ${seq}'s details` }),
      );
      expect(within(row).getByText(raw)).toBeInTheDocument();
    }
    first.unmount();
    // An auditor alone does not open Cards: the reference, with no link.
    renderApp('/audit', new FakeBff({ audit, users }));
    const [auditorCardRow] = await rowsOf();
    expect(within(auditorCardRow!).getByText('910000022')).toBeInTheDocument();
    expect(within(auditorCardRow!).queryByRole('link')).toBeNull();
  });

  it('when the chain is verified, then the list is read again to hold the verification’s own row, and the badge says which row that is', async () => {
    const bff = new FakeBff();
    recordExplicitChecks(bff, { everyCheck: true });
    const app = renderApp('/audit', bff);
    expect(await screen.findByText('Chain verified up to row 120')).toBeInTheDocument();
    expect(screen.getByText(/This check is recorded as row #121\./)).toBeInTheDocument();
    expect(await screen.findByText('121 rows')).toBeInTheDocument();
    const newest = () =>
      within(screen.getByRole('table', { name: 'Audit log' })).getAllByRole('row')[1];
    expect(newest()).toHaveTextContent(/^121.*audit\.verify/);
    await app.user.click(screen.getByRole('button', { name: 'Verify the chain again' }));
    expect(await screen.findByText('Chain verified up to row 121')).toBeInTheDocument();
    expect(screen.getByText(/This check is recorded as row #122\./)).toBeInTheDocument();
    expect(await screen.findByText('122 rows')).toBeInTheDocument();
    expect(newest()).toHaveTextContent(/^122/);
  });

  it('when the page opens, then its own check is sent as automatic and, found intact and not recorded, says so and leaves the list; Verify again is explicit and recorded', async () => {
    const bff = new FakeBff();
    recordExplicitChecks(bff);
    const app = renderApp('/audit', bff);
    expect(await screen.findByText('Chain verified up to row 120')).toBeInTheDocument();
    expect(
      screen.getByText(/Checked by the page itself, not recorded; Verify again records a check\./),
    ).toBeInTheDocument();
    expect(screen.queryByText(/This check is recorded as row/)).toBeNull();
    expect(await screen.findByText('120 rows')).toBeInTheDocument();
    // Nothing was written: the list is not read again.
    expect(bff.requestsTo('GET', '/api/audit')).toHaveLength(1);
    await app.user.click(screen.getByRole('button', { name: 'Verify the chain again' }));
    expect(await screen.findByText(/This check is recorded as row #121\./)).toBeInTheDocument();
    expect(await screen.findByText('121 rows')).toBeInTheDocument();
    expect(verifyQueries(bff)).toEqual([{ check: 'automatic' }, {}]);
  });

  it('when the screen is narrow (390 px), then the re-check and copy buttons are held to the text before them, not left on lines of their own', async () => {
    screenWidth(390);
    renderApp('/audit', new FakeBff());
    await screen.findByText('Chain verified up to row 120');
    for (const name of ['Verify the chain again', 'Copy chain head']) {
      const holder = screen.getByRole('button', { name }).parentElement!.parentElement!;
      expect(holder).toHaveStyle({ whiteSpace: 'nowrap' });
      // A word joiner before the icon: no line break between the text and it.
      expect(holder.firstChild?.textContent).toBe('\u2060');
      expect(holder.previousSibling?.nodeType).toBe(Node.TEXT_NODE);
    }
  });

  it('when a row has a request id, then a button copies the whole id, for the keyboard too', async () => {
    const requestId = '0f1e2d3c-4b5a-4697-8877-665544332211';
    const app = renderApp('/audit', new FakeBff({ audit: [makeAuditRow(1, { requestId })] }));
    const copy = await screen.findByRole('button', { name: 'Copy request id of row 1' });
    await app.user.click(copy);
    expect(
      await screen.findByRole('button', { name: 'request id of row 1 copied' }),
    ).toBeInTheDocument();
    // user-event's clipboard stands in for the browser's
    expect(await navigator.clipboard.readText()).toBe(requestId);
  });

  it("when a row has no user, then Paydesk's own work and an unauthenticated request are told apart", async () => {
    const bff = new FakeBff({
      audit: [
        makeAuditRow(2, {
          actorId: null,
          actorEmail: null,
          actorRoles: [],
          action: 'transaction.reconcile',
          requestId: null,
          ip: null,
        }),
        makeAuditRow(1, { actorId: null, actorEmail: null, actorRoles: [], outcome: 'refused' }),
      ],
    });
    renderApp('/audit', bff);
    const table = await screen.findByRole('table', { name: 'Audit log' });
    const [, reconcile, refused] = within(table).getAllByRole('row');
    expect(within(reconcile!).getByText('Paydesk (automatic)')).toBeInTheDocument();
    expect(within(refused!).getByText('anonymous')).toBeInTheDocument();
  });

  it('when the first page loads, then the newest rows show with total and the chain badge', async () => {
    const bff = new FakeBff();
    renderApp('/audit', bff);
    const table = await screen.findByRole('table', { name: 'Audit log' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(51);
    expect(within(rows[1]!).getByText('120')).toBeInTheDocument();
    expect(screen.getByText('120 rows')).toBeInTheDocument();
    expect(await screen.findByText('Chain verified up to row 120')).toBeInTheDocument();
    expect(lastListQuery(bff)).toEqual({ page: '1', pageSize: '50' });
  });

  it('when the chain is broken, then the badge names the row and what is wrong', async () => {
    const bff = new FakeBff();
    bff.verify = {
      ok: false,
      rowsChecked: 42,
      verifiedUpToSeq: 41,
      firstBrokenSeq: 42,
      reason: 'hash_mismatch',
      head: null,
    };
    renderApp('/audit', bff);
    expect(await screen.findByText('Chain broken at row 42')).toBeInTheDocument();
    expect(
      screen.getByText(
        /Rows up to 41 verify; row 42 does not: its content does not match its hash/,
      ),
    ).toBeInTheDocument();
  });

  it('when the chain verifies, then its head is shown with a button that copies it as row:hash, and a note to keep it outside Paydesk', async () => {
    const app = renderApp('/audit', new FakeBff());
    expect(
      await screen.findByText('Chain head: row #120, hash 00000000…00000078'),
    ).toBeInTheDocument();
    expect(screen.getByText(/Keep a copy of it outside Paydesk/)).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Copy chain head' }));
    expect(await screen.findByRole('button', { name: 'chain head copied' })).toBeInTheDocument();
    expect(await navigator.clipboard.readText()).toBe(`120:${hash120}`);
  });

  it('when a recorded head is malformed, then the field says what is wrong and nothing is sent', async () => {
    const bff = new FakeBff();
    const app = renderApp('/audit', bff);
    await screen.findByText('Chain verified up to row 120');
    const field = screen.getByLabelText('Recorded head (row:hash)');
    const verify = screen.getByRole('button', { name: 'Verify against it' });
    for (const [text, message] of [
      ['', 'Enter the head you recorded, as row:hash.'],
      [hash120, 'Write the row number, one colon, then the hash (row:hash).'],
      [`0:${hash120}`, 'The row must be a whole number from 1.'],
      ['120:abc', 'The hash must be 64 characters, each 0–9 or a–f.'],
    ] as const) {
      await app.user.clear(field);
      if (text !== '') await app.user.type(field, text);
      await app.user.click(verify);
      expect(await screen.findByText(message)).toBeInTheDocument();
      expect(field).toHaveAttribute('aria-invalid', 'true');
    }
    expect(verifyQueries(bff)).toEqual([{ check: 'automatic' }]);
  });

  it('when the chain is verified against a recorded head that does not match, then the anchor is sent and the badge says the head was copied wrongly or the rows up to it changed', async () => {
    const bff = new FakeBff();
    const app = renderApp('/audit', bff);
    await screen.findByText('Chain verified up to row 120');
    const recorded = `5:${'f'.repeat(64)}`;
    // pasted with spaces (around its colon too) and in capitals: still the same head
    await app.user.type(
      screen.getByLabelText('Recorded head (row:hash)'),
      ` ${recorded.toUpperCase().replace(':', ' : ')} `,
    );
    await app.user.click(screen.getByRole('button', { name: 'Verify against it' }));
    expect(await screen.findByText('Recorded head does not match')).toBeInTheDocument();
    expect(
      screen.getByText(
        'Rows up to #5 do not match the recorded head: row #5 has another hash. Either the head was copied wrongly (compare it with where you kept it) or those rows were changed since you recorded it.',
      ),
    ).toBeInTheDocument();
    expect(verifyQueries(bff).at(-1)).toEqual({ anchor: recorded });
    // back to the chain alone
    await app.user.click(screen.getByRole('button', { name: 'Verify chain only' }));
    expect(await screen.findByText('Chain verified up to row 120')).toBeInTheDocument();
  });

  it('when the recorded head is past the end of the log, then the badge says it was copied wrongly or the end of the log was removed; when it holds, that it still does', async () => {
    const bff = new FakeBff();
    const app = renderApp('/audit', bff);
    await screen.findByText('Chain verified up to row 120');
    const field = screen.getByLabelText('Recorded head (row:hash)');
    await app.user.type(field, `200:${hash120}`);
    await app.user.click(screen.getByRole('button', { name: 'Verify against it' }));
    expect(
      await screen.findByText(
        'There is no row #200: the log ends at row #120. Either the head was copied wrongly (compare it with where you kept it) or rows were removed from the end of the log since you recorded it.',
      ),
    ).toBeInTheDocument();
    expect(screen.getByText('Recorded head not found')).toBeInTheDocument();
    await app.user.clear(field);
    await app.user.type(field, `120:${hash120}`);
    await app.user.click(screen.getByRole('button', { name: 'Verify against it' }));
    expect(
      await screen.findByText(/every hash matches\. Row #120 still has the hash you recorded\./),
    ).toBeInTheDocument();
    expect(verifyQueries(bff).at(-1)).toEqual({ anchor: `120:${hash120}` });
  });

  it('when a head did not match and an invalid one is then tried, then only the field error shows: the old verdict is gone and nothing is sent', async () => {
    const bff = new FakeBff();
    const app = renderApp('/audit', bff);
    await screen.findByText('Chain verified up to row 120');
    const field = screen.getByLabelText('Recorded head (row:hash)');
    await app.user.type(field, `5:${'f'.repeat(64)}`);
    await app.user.click(screen.getByRole('button', { name: 'Verify against it' }));
    expect(await screen.findByText('Recorded head does not match')).toBeInTheDocument();
    const sent = verifyQueries(bff).length;
    await app.user.clear(field);
    await app.user.type(field, 'hello');
    await app.user.click(screen.getByRole('button', { name: 'Verify against it' }));
    expect(
      await screen.findByText('Write the row number, one colon, then the hash (row:hash).'),
    ).toBeInTheDocument();
    expect(screen.queryByText('Recorded head does not match')).toBeNull();
    expect(screen.queryByText(/do not match the recorded head/)).toBeNull();
    // The badge is back to the chain alone, which says nothing about a head: asked again as the
    // page's own check, the malformed head never sent.
    expect(await screen.findByText('Chain verified up to row 120')).toBeInTheDocument();
    expect(verifyQueries(bff).slice(sent)).toEqual([{ check: 'automatic' }]);
  });

  it('when checks against a head wrote rows and the badge goes back to the chain alone, then it shows the chain as it is now, not as it was on opening', async () => {
    const bff = new FakeBff();
    const hashOf = (seq: number) => bff.audit.find((row) => row.seq === seq)?.hash ?? '';
    recordExplicitChecks(bff);
    const app = renderApp('/audit', bff);
    expect(await screen.findByText('Chain verified up to row 120')).toBeInTheDocument();
    const field = screen.getByLabelText('Recorded head (row:hash)');
    await app.user.type(field, `120:${hashOf(120)}`);
    await app.user.click(screen.getByRole('button', { name: 'Verify against it' }));
    expect(await screen.findByText(/This check is recorded as row #121\./)).toBeInTheDocument();
    // A malformed head: its error, and the chain alone as it is now (row 121 written above).
    await app.user.clear(field);
    await app.user.type(field, '97:abc');
    await app.user.click(screen.getByRole('button', { name: 'Verify against it' }));
    expect(
      await screen.findByText('The hash must be 64 characters, each 0–9 or a–f.'),
    ).toBeInTheDocument();
    expect(await screen.findByText('Chain verified up to row 121')).toBeInTheDocument();
    expect(screen.getByText(/Chain head: row #121,/)).toBeInTheDocument();
    expect(screen.queryByText(/row #120,/)).toBeNull();
  });

  it('when a head did not match and the field is then edited, then the verdict goes with the text it was about', async () => {
    const bff = new FakeBff();
    const app = renderApp('/audit', bff);
    await screen.findByText('Chain verified up to row 120');
    const field = screen.getByLabelText('Recorded head (row:hash)');
    await app.user.type(field, `200:${hash120}`);
    await app.user.click(screen.getByRole('button', { name: 'Verify against it' }));
    expect(await screen.findByText('Recorded head not found')).toBeInTheDocument();
    await app.user.type(field, '{Backspace}');
    expect(screen.queryByText('Recorded head not found')).toBeNull();
    expect(screen.queryByText(/There is no row #200/)).toBeNull();
    expect(await screen.findByText('Chain verified up to row 120')).toBeInTheDocument();
    // An error about the text as it was goes too.
    await app.user.clear(field);
    await app.user.type(field, 'hello');
    await app.user.click(screen.getByRole('button', { name: 'Verify against it' }));
    expect(field).toHaveAttribute('aria-invalid', 'true');
    await app.user.type(field, '!');
    expect(field).toHaveAttribute('aria-invalid', 'false');
    expect(
      screen.queryByText('Write the row number, one colon, then the hash (row:hash).'),
    ).toBeNull();
  });

  it('when the same head is verified again, then it is asked afresh and the old verdict is not shown meanwhile', async () => {
    const bff = new FakeBff();
    const app = renderApp('/audit', bff);
    await screen.findByText('Chain verified up to row 120');
    const recorded = `5:${'f'.repeat(64)}`;
    await app.user.type(screen.getByLabelText('Recorded head (row:hash)'), recorded);
    await app.user.click(screen.getByRole('button', { name: 'Verify against it' }));
    expect(await screen.findByText('Recorded head does not match')).toBeInTheDocument();
    bff.on('GET /api/audit/verify', () => 'hang');
    await app.user.click(screen.getByRole('button', { name: 'Verify against it' }));
    expect(await screen.findByText('Verifying chain…')).toBeInTheDocument();
    expect(screen.queryByText('Recorded head does not match')).toBeNull();
    expect(verifyQueries(bff).slice(-2)).toEqual([{ anchor: recorded }, { anchor: recorded }]);
  });

  it('when the next page is chosen, then page 2 is requested, the URL says so and Back returns to page 1', async () => {
    const bff = new FakeBff();
    const app = renderApp('/audit', bff);
    await screen.findByRole('table', { name: 'Audit log' });
    await app.user.click(screen.getByRole('button', { name: /next page/i }));
    await waitFor(() => {
      expect(app.location()).toBe('/audit?page=2');
    });
    await waitFor(() => {
      expect(
        within(screen.getByRole('table', { name: 'Audit log' })).getAllByRole('row')[1],
      ).toHaveTextContent(/^70/);
    });
    expect(lastListQuery(bff)).toEqual({ page: '2', pageSize: '50' });
    await app.back();
    await waitFor(() => {
      expect(app.location()).toBe('/audit');
    });
    await waitFor(() => {
      expect(
        within(screen.getByRole('table', { name: 'Audit log' })).getAllByRole('row')[1],
      ).toHaveTextContent(/^120/);
    });
  });

  it('when the page size changes, then page 1 of the new size is requested and kept in the URL', async () => {
    const bff = new FakeBff();
    const app = renderApp('/audit?page=2', bff);
    await screen.findByRole('table', { name: 'Audit log' });
    await app.user.selectOptions(screen.getByLabelText('Rows per page'), '25');
    await waitFor(() => {
      expect(app.location()).toBe('/audit?pageSize=25');
    });
    expect(lastListQuery(bff)).toEqual({ page: '1', pageSize: '25' });
    expect(await screen.findByText('1–25 of 120')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous page' })).toBeDisabled();
  });

  it('when a capture’s gateway reply was lost, then its row reads unknown, and the outcome filter finds it', async () => {
    const bff = new FakeBff({
      audit: [
        makeAuditRow(1),
        makeAuditRow(2, { outcome: 'unknown', action: 'transaction.capture' }),
      ],
    });
    const app = renderApp('/audit?page=1', bff);
    await screen.findByRole('table', { name: 'Audit log' });
    const outcome = screen.getByLabelText('Outcome');
    expect(
      within(outcome).getByRole('option', { name: 'Unknown (reply lost)' }),
    ).toBeInTheDocument();
    await app.user.selectOptions(outcome, 'unknown');
    await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(await screen.findByText('1 row match')).toBeInTheDocument();
    const rows = within(screen.getByRole('table', { name: 'Audit log' })).getAllByRole('row');
    expect(rows[1]).toHaveTextContent('transaction.capture');
    expect(rows[1]).toHaveTextContent('Unknown (reply lost)');
  });

  it('when the screen is a laptop’s (1280 px), then the outcome is under the action, so the details fit beside; from 1536 px each has a column', async () => {
    const headers = () =>
      within(screen.getByRole('table', { name: 'Audit log' }))
        .getAllByRole('columnheader')
        .map((h) => h.textContent);
    const rows = [
      makeAuditRow(1, {
        action: 'payment_link.withdraw',
        outcome: 'refused',
        errorCode: 'FORBIDDEN',
      }),
    ];
    screenWidth(1280);
    const laptop = renderApp('/audit', new FakeBff({ audit: rows }));
    await screen.findByRole('table', { name: 'Audit log' });
    // Action and Outcome as columns of their own pushed Details off a 1280 px screen.
    expect(headers()).toEqual(['Row', 'Time', 'Actor', 'Action and outcome', 'Target', 'Details']);
    const cell = within(screen.getAllByRole('row')[1]!).getAllByRole('cell')[3]!;
    expect(cell).toHaveTextContent(
      /^Tried to withdraw own payout formpayment_link\.withdrawRefusedFORBIDDEN$/,
    );
    // The name may break after its dot on a narrow column.
    expect(cell.querySelector('code wbr')).not.toBeNull();
    laptop.unmount();
    screenWidth(1536);
    renderApp('/audit', new FakeBff({ audit: rows }));
    await screen.findByRole('table', { name: 'Audit log' });
    expect(headers()).toEqual(['Row', 'Time', 'Actor', 'Action', 'Target', 'Outcome', 'Details']);
    vi.restoreAllMocks();
  });

  it('when filters are applied, then they go into the URL and the request, and the exports carry them', async () => {
    const bff = new FakeBff({
      audit: [
        makeAuditRow(1),
        makeAuditRow(2, { outcome: 'refused', errorCode: 'FORBIDDEN', action: 'user.update' }),
        makeAuditRow(3, { outcome: 'refused', errorCode: 'FORBIDDEN', action: 'session.login' }),
      ],
    });
    const app = renderApp('/audit?page=1', bff);
    await screen.findByRole('table', { name: 'Audit log' });
    // Both match a beginning (the BFF's prefix filter), and say so.
    expect(screen.getByLabelText('Action')).toHaveAccessibleDescription(
      'The name under an action’s words in the table, or its beginning: payout finds every payout action.',
    );
    expect(screen.getByLabelText('Actor')).toHaveAccessibleDescription(
      'An e-mail or its beginning (support finds support@…), or a user id.',
    );
    await app.user.type(screen.getByLabelText('Action'), 'user.');
    await app.user.selectOptions(screen.getByLabelText('Outcome'), 'refused');
    await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
    await waitFor(() => {
      expect(app.location()).toBe('/audit?action=user.&outcome=refused');
    });
    expect(lastListQuery(bff)).toEqual({
      action: 'user.',
      outcome: 'refused',
      page: '1',
      pageSize: '50',
    });
    expect(await screen.findByText('1 row match')).toBeInTheDocument();
    expect(screen.getByText('FORBIDDEN')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      '/api/audit/export?action=user.&outcome=refused&format=csv&delimiter=comma',
    );
    expect(screen.getByRole('link', { name: 'Export JSONL' })).toHaveAttribute(
      'href',
      '/api/audit/export?action=user.&outcome=refused&format=jsonl',
    );
    await app.back();
    await waitFor(() => {
      expect(screen.getByLabelText('Action')).toHaveValue('');
    });
    expect(screen.getByText('3 rows')).toBeInTheDocument();
  });

  it('when the reader’s locale writes a decimal comma (de-DE), then the CSV export asks for semicolons; in en-US for commas; and the page says exports are in UTC', async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('de-DE');
    const first = renderApp('/audit', new FakeBff());
    await screen.findByRole('table', { name: 'Audit log' });
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      '/api/audit/export?format=csv&delimiter=semicolon',
    );
    // JSONL has no separator to choose.
    expect(screen.getByRole('link', { name: 'Export JSONL' })).toHaveAttribute(
      'href',
      '/api/audit/export?format=jsonl',
    );
    // An export holds every row the filters match (all, when none is set), not only the page.
    expect(
      screen.getByText(
        /Exports contain every row that matches the filters, not only this page, with times in UTC\./,
      ),
    ).toBeInTheDocument();
    first.unmount();
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('en-US');
    renderApp('/audit', new FakeBff());
    await screen.findByRole('table', { name: 'Audit log' });
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      '/api/audit/export?format=csv&delimiter=comma',
    );
  });
  it('when a backwards date range was never applied, then Clear empties the form, its error goes and Apply works again', async () => {
    const bff = new FakeBff();
    const app = renderApp('/audit', bff);
    await screen.findByRole('table', { name: 'Audit log' });
    const from = screen.getByLabelText('From (UTC)');
    const to = screen.getByLabelText('To (UTC)');
    await app.user.type(from, '2026-11-25T12:00');
    await app.user.type(to, '2026-11-24T12:00');
    await app.user.type(screen.getByLabelText('Actor'), 'sam@example.com');
    expect(screen.getByText('Must be after “From”.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Apply filters' })).toBeDisabled();
    await app.user.click(screen.getByRole('button', { name: 'Clear' }));
    expect(from).toHaveValue('');
    expect(to).toHaveValue('');
    expect(screen.getByLabelText('Actor')).toHaveValue('');
    expect(screen.queryByText('Must be after “From”.')).toBeNull();
    expect(screen.getByRole('button', { name: 'Apply filters' })).toBeEnabled();
    expect(app.location()).toBe('/audit');
  });

  it('when the reader’s clock is not on UTC, then the date filters are labelled with the zone the table’s times are shown in', async () => {
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      renderApp('/audit', new FakeBff());
      const table = await screen.findByRole('table', { name: 'Audit log' });
      // EST or EDT, as the season has it: the same name in the table and on the filters.
      const cell = within(table).getAllByText(/\b(EST|EDT)$/)[0]!;
      const shown = /(EST|EDT)$/.exec(cell.textContent)![1]!;
      expect(screen.getByLabelText(`From (${shown})`)).toBeInTheDocument();
      expect(screen.getByLabelText(`To (${shown})`)).toBeInTheDocument();
      expect(screen.queryByLabelText(/your time/)).toBeNull();
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });

  it('when a date range is entered in local time, then UTC instants are sent', async () => {
    const bff = new FakeBff();
    const app = renderApp('/audit', bff);
    await screen.findByRole('table', { name: 'Audit log' });
    await app.user.type(screen.getByLabelText('From (UTC)'), '2026-11-20T10:00');
    await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
    await waitFor(() => {
      expect(lastListQuery(bff).from).toBe(new Date('2026-11-20T10:00').toISOString());
    });
  });
});
