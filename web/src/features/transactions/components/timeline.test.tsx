import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { TimelineEntry } from '@paydesk/shared/api';
import { Timeline } from './timeline';

const entry = (id: number, title: string) => ({
  id,
  at: `2026-11-25T10:0${String(id)}:00.000Z`,
  kind: 'reconcile' as const,
  title,
  actor: null,
  data: {},
});

describe('the order timeline', () => {
  it('when a status check names a stage, then it reads as the page header says it, in its chip’s words, not as codes', () => {
    render(
      <Timeline
        entries={[
          entry(1, 'status: approved (partially_returned)'),
          entry(2, 'status: declined'),
          entry(3, 'status: approved (hold_cancelled)'),
          entry(4, 'status: approved (captured)'),
        ]}
      />,
    );
    // 'Partly returned' and 'Hold released', as the chips say (not 'partially returned')
    expect(screen.getByText('Status: Approved · partly returned')).toBeInTheDocument();
    expect(screen.getByText('Status: Declined')).toBeInTheDocument();
    expect(screen.getByText('Status: Approved · hold released')).toBeInTheDocument();
    expect(screen.getByText('Status: Approved · captured')).toBeInTheDocument();
    expect(screen.queryByText(/partially|_/)).toBeNull();
  });

  it('when the BFF’s titles start lowercase, then each shows with a capital first letter, the rest as stored', () => {
    const entries = [
      entry(1, 'callback: approved, not confirmed by status'),
      entry(2, 'void requested'),
      entry(3, 'return: accepted'),
    ];
    render(<Timeline entries={entries} />);
    const list = screen.getByRole('list', { name: 'Timeline' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.querySelector('p')?.textContent),
    ).toEqual([
      'Callback: approved, not confirmed by status',
      'Void requested',
      'Return: accepted',
    ]);
    // display only: the stored titles stay the BFF's
    expect(entries.map((e) => e.title)).toEqual([
      'callback: approved, not confirmed by status',
      'void requested',
      'return: accepted',
    ]);
  });

  it('when a title names an amount, then it reads in the reader’s locale with its currency’s sign', () => {
    render(
      <Timeline
        entries={[
          entry(1, 'return 1234.50 EUR requested'),
          entry(2, 'callback: capture 0.05 USD approved'),
        ]}
      />,
    );
    expect(screen.getByText('Return €1,234.50 requested')).toBeInTheDocument();
    expect(screen.getByText('Callback: capture $0.05 approved')).toBeInTheDocument();
  });

  it('when an order was reconciled for long, then a run of identical automatic entries shows its first and last, and the rest on demand; staff actions never fold', async () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 25, 10, minute)).toISOString();
    const check = (id: number): TimelineEntry => ({
      ...entry(id, 'status: processing'),
      kind: 'gateway',
      at: at(id),
    });
    const staff = (id: number): TimelineEntry => ({
      ...entry(id, 'capture 5.00 EUR requested'),
      kind: 'staff',
      actor: 'finance.demo@paydesk.local',
      at: at(id),
    });
    render(
      <Timeline
        entries={[
          staff(1),
          staff(2),
          staff(3),
          staff(4),
          ...[5, 6, 7, 8, 9, 10].map(check),
          { ...entry(11, 'status: approved'), at: at(11) },
          check(12),
          check(13),
        ]}
      />,
    );
    const list = screen.getByRole('list', { name: 'Timeline' });
    const titles = () =>
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.querySelector('p, button')?.textContent ?? li.textContent);
    expect(titles()).toEqual([
      'Capture €5.00 requested',
      'Capture €5.00 requested',
      'Capture €5.00 requested',
      'Capture €5.00 requested',
      'Status: Processing',
      'Show 4 more identical entries',
      'Status: Processing',
      'Status: Approved',
      'Status: Processing',
      'Status: Processing',
    ]);
    // first and last of the run, with their own times
    expect(list.querySelector(`time[datetime="${at(5)}"]`)).not.toBeNull();
    expect(list.querySelector(`time[datetime="${at(10)}"]`)).not.toBeNull();
    expect(list.querySelector(`time[datetime="${at(7)}"]`)).toBeNull();

    // on paper, where there is no button, the page says what it leaves out
    expect(list).toHaveTextContent(
      /… 4 identical entries between these two \(.+ to .+\) not printed/,
    );
    expect(list.querySelector(`time[datetime="${at(6)}"]`)).not.toBeNull();
    expect(list.querySelector(`time[datetime="${at(9)}"]`)).not.toBeNull();

    await userEvent.click(screen.getByRole('button', { name: 'Show 4 more identical entries' }));
    expect(titles().filter((t) => t === 'Status: Processing')).toHaveLength(8);
    expect(list.querySelector(`time[datetime="${at(7)}"]`)).not.toBeNull();
    // the keyboard focus goes to the first entry shown, not to the page's body
    expect(document.activeElement).toContainElement(
      list.querySelector<HTMLElement>(`time[datetime="${at(6)}"]`),
    );
  });
});

describe('an entry’s Details', () => {
  /** A capture as the BFF records it (bff payments/gateway.ts `exchangeData`), redacted. */
  const exchange = {
    operation: 'capture',
    endpointId: '1001',
    url: 'https://gateway.example/paynet/api/v2/capture/1001',
    request: {
      login: 'paydesk',
      client_orderid: 'ord-1',
      orderid: '900001',
      amount: '5.00',
      currency: 'EUR',
      control: '[redacted]',
    },
    sentAt: '2026-11-25T10:01:00.000Z',
    receivedAt: '2026-11-25T10:01:01.000Z',
    httpStatus: 200,
    reply: {
      type: 'async-response',
      'serial-number': 's-1',
      'paynet-order-id': '900001',
      'merchant-order-id': 'ord-1',
      'error-code': '',
    },
    rawReply: null,
    error: null,
    outcome: 'reply',
  };
  const withData = (data: Record<string, unknown>, kind: TimelineEntry['kind']): TimelineEntry => ({
    ...entry(1, 'capture: accepted'),
    kind,
    data,
  });
  /** Each row of a group as [name, value], as the reader sees them. */
  const rows = (group: HTMLElement) =>
    Array.from(group.querySelectorAll('dt')).map((dt) => [
      dt.textContent,
      dt.nextElementSibling?.textContent,
    ]);
  const openDetails = async (user: ReturnType<typeof userEvent.setup>, name = 'Details') => {
    const summary = screen.getByText(name).closest('summary');
    await user.click(summary!);
    expect(summary!.closest('details')).toHaveProperty('open', true);
  };

  it('when a gateway exchange is opened, then its request and reply fields are rows, named as the gateway names them, after how the exchange went', async () => {
    const user = userEvent.setup();
    render(<Timeline entries={[withData(exchange, 'gateway')]} />);
    await openDetails(user);
    // drawn once opened (the browser's toggle event)
    expect(rows(await screen.findByRole('group', { name: 'Exchange' }))).toEqual([
      ['Operation', 'capture'],
      ['Outcome', 'reply'],
      ['HTTP status', '200'],
      ['Endpoint', '1001'],
      ['URL', 'https://gateway.example/paynet/api/v2/capture/1001'],
      ['Sent', '2026-11-25T10:01:00.000Z'],
      ['Received', '2026-11-25T10:01:01.000Z'],
    ]);
    expect(rows(screen.getByRole('group', { name: 'Request' }))).toEqual([
      ['login', 'paydesk'],
      ['client_orderid', 'ord-1'],
      ['orderid', '900001'],
      ['amount', '5.00'],
      ['currency', 'EUR'],
      ['control', '[redacted]'],
    ]);
    expect(rows(screen.getByRole('group', { name: 'Reply' }))).toEqual([
      ['type', 'async-response'],
      ['serial-number', 's-1'],
      ['paynet-order-id', '900001'],
      ['merchant-order-id', 'ord-1'],
      ['error-code', '(empty)'],
    ]);
    // Not the JSON: its braces and quotes are behind "Raw JSON".
    expect(screen.getByText('Raw JSON').closest('details')).toHaveProperty('open', false);
  });

  it('when a reply could not be read, then its body shows as received, as text', async () => {
    const user = userEvent.setup();
    const unreadable = {
      ...exchange,
      httpStatus: 502,
      reply: null,
      rawReply: '<html><body><b>Bad gateway</b></body></html>',
      error: 'the gateway reply could not be read',
      outcome: 'unknown',
      reason: 'server-error',
    };
    render(<Timeline entries={[withData(unreadable, 'gateway')]} />);
    await openDetails(user);
    expect(rows(await screen.findByRole('group', { name: 'Exchange' })).slice(0, 5)).toEqual([
      ['Operation', 'capture'],
      ['Outcome', 'unknown'],
      ['Reason', 'server-error'],
      ['HTTP status', '502'],
      ['Error', 'the gateway reply could not be read'],
    ]);
    const body = screen.getByRole('group', { name: 'Reply as received (not readable as fields)' });
    expect(rows(body)).toEqual([['Body', '<html><body><b>Bad gateway</b></body></html>']]);
    expect(body.querySelector('b')).toBeNull();
  });

  it('when an entry’s data holds objects and lists (a drift’s two sides, its reasons), then each object is a group and each item a line', async () => {
    const user = userEvent.setup();
    const reasons = [
      'the gateway says approved, Paydesk says processing',
      'captured: gateway 5.00, Paydesk 0.00',
    ];
    const drift = {
      detectedAt: '2026-11-25T10:01:00.000Z',
      reasons,
      paydesk: { status: 'processing', stage: null, captured: '0.00' },
      gateway: { status: 'approved', stage: 'captured', captured: '5.00' },
    };
    render(
      <Timeline
        entries={[
          withData(drift, 'drift'),
          { ...withData({ comment: 'checked with the gateway', reviewed: drift }, 'staff'), id: 2 },
        ]}
      />,
    );
    const [driftDetails, reviewDetails] = screen.getAllByText('Details');
    await user.click(driftDetails!);
    await user.click(reviewDetails!);
    const own = await screen.findByRole('group', { name: 'Drift' });
    expect(rows(own)).toEqual([
      ['detectedAt', '2026-11-25T10:01:00.000Z'],
      ['reasons', reasons.join('')],
    ]);
    // a list's items each on a line of their own, not run together
    for (const reason of reasons) expect(within(own).getByText(reason)).toBeInTheDocument();
    expect(rows(screen.getByRole('group', { name: 'paydesk' }))).toEqual([
      ['status', 'processing'],
      ['stage', '—'],
      ['captured', '0.00'],
    ]);
    // the staff review keeps what it reviewed: its nested sides by their path
    expect(rows(await screen.findByRole('group', { name: 'Staff' }))).toEqual([
      ['comment', 'checked with the gateway'],
    ]);
    expect(rows(screen.getByRole('group', { name: 'reviewed' }))).toEqual([
      ['detectedAt', '2026-11-25T10:01:00.000Z'],
      ['reasons', reasons.join('')],
      ['paydesk.status', 'processing'],
      ['paydesk.stage', '—'],
      ['paydesk.captured', '0.00'],
      ['gateway.status', 'approved'],
      ['gateway.stage', 'captured'],
      ['gateway.captured', '5.00'],
    ]);
  });

  it('when an entry’s data has a shape the rows cannot say, then it shows as raw JSON, with its copy button, and nothing breaks', async () => {
    const user = userEvent.setup();
    const odd = { a: { b: { c: { d: { e: { f: 'deep' } } } } }, grid: [[1, 2], [3]] };
    render(
      <Timeline
        entries={[
          withData(odd, 'reconcile'),
          // Not an object at all (the API says it is): no Details, no crash.
          { ...entry(2, 'status: approved'), data: null as unknown as TimelineEntry['data'] },
        ]}
      />,
    );
    expect(screen.getByText('Status: Approved')).toBeInTheDocument();
    await openDetails(user);
    expect(screen.queryByRole('group', { name: 'Reconcile' })).toBeNull();
    expect(screen.queryByText('Raw JSON')).toBeNull();
    expect(screen.getByText(/"deep"/)).toHaveTextContent(JSON.stringify(odd, null, 2), {
      normalizeWhitespace: false,
    });
    await user.click(screen.getByRole('button', { name: 'Copy raw JSON' }));
    expect(await navigator.clipboard.readText()).toBe(JSON.stringify(odd, null, 2));
  });

  it('when an engineer needs the JSON for a ticket to the gateway, then it is one disclosure further, as recorded, and copies', async () => {
    const user = userEvent.setup();
    render(<Timeline entries={[withData(exchange, 'gateway')]} />);
    await openDetails(user);
    await openDetails(user, 'Raw JSON');
    const raw = JSON.stringify(exchange, null, 2);
    expect(screen.getByText(/"client_orderid": "ord-1"/)).toHaveTextContent(raw, {
      normalizeWhitespace: false,
    });
    await user.click(screen.getByRole('button', { name: 'Copy raw JSON' }));
    expect(await navigator.clipboard.readText()).toBe(raw);
    expect(screen.getByRole('button', { name: 'raw JSON copied' })).toBeInTheDocument();
  });
});
