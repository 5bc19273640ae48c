import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { AttentionCards } from './attention-cards';

describe('the attention cards', () => {
  it('when orders have an unknown outcome, then the card counts them, says a follow-up counts too, and links to the list’s Unknown outcome filter', () => {
    render(
      <MemoryRouter>
        <AttentionCards mayRedo attention={{ unknown: 2, drift: 0, cap: 1000 }} pending={null} />
      </MemoryRouter>,
    );
    const card = screen.getByRole('region', { name: 'Unknown outcome' });
    expect(within(card).getByText('2')).toBeInTheDocument();
    expect(card).toHaveTextContent('capture, return, void or card reference');
    expect(
      within(card).getByRole('link', { name: 'Show orders with an unknown outcome' }),
    ).toHaveAttribute('href', '/transactions?status=unknown');
  });

  it('when follow-ups of the last days were not made by the gateway, then a card counts them and links to their orders', () => {
    render(
      <MemoryRouter>
        <AttentionCards
          mayRedo
          attention={{
            unknown: 0,
            drift: 0,
            cap: 1000,
            notApplied: {
              count: 7,
              days: 7,
              orders: [
                {
                  id: '00000000-0000-4000-8000-000000000001',
                  orderid: '1000330',
                  clientOrderId: 'shop-1',
                  kind: 'return',
                  amount: '10.01',
                  currency: 'EUR',
                  requestedBy: 'finance.demo@paydesk.local',
                  at: '2026-11-27T19:18:43.764Z',
                },
                {
                  id: '00000000-0000-4000-8000-000000000002',
                  orderid: 'pending:rb-1acf',
                  clientOrderId: 'rb-1acf',
                  kind: 'rebill',
                  amount: '19.91',
                  currency: 'EUR',
                  requestedBy: null,
                  at: '2026-11-27T19:10:00.000Z',
                },
              ],
            },
          }}
          pending={null}
        />
      </MemoryRouter>,
    );
    const card = screen.getByRole('region', { name: 'Not made by the gateway (7 days)' });
    expect(within(card).getByText('7')).toBeInTheDocument();
    expect(card).toHaveTextContent('nothing moved');
    expect(
      within(card).getByRole('link', { name: 'Return €10.01 on order 1000330' }),
    ).toHaveAttribute('href', '/transactions/00000000-0000-4000-8000-000000000001');
    expect(
      within(card).getByRole('link', {
        name: 'Rebill €19.91 on order (number not known yet; client order rb-1acf)',
      }),
    ).toHaveAttribute('href', '/transactions/00000000-0000-4000-8000-000000000002');
    expect(card).toHaveTextContent('The latest 2 are listed');
  });

  it('when follow-ups were not made by the gateway, then the card links to the list filtered to all their orders, as the other cards link to theirs', () => {
    render(
      <MemoryRouter>
        <AttentionCards
          mayRedo
          attention={{
            unknown: 0,
            drift: 0,
            cap: 1000,
            notApplied: { count: 12, days: 7, orders: [] },
          }}
          pending={null}
        />
      </MemoryRouter>,
    );
    const card = screen.getByRole('region', { name: 'Not made by the gateway (7 days)' });
    expect(
      within(card).getByRole('link', { name: 'Show orders with a follow-up not made' }),
    ).toHaveAttribute('href', '/transactions?notMade=true');
  });

  it('when follow-ups were not made, then who may do them again is told to, and the others to ask finance', () => {
    const attention = {
      unknown: 0,
      drift: 0,
      cap: 1000,
      notApplied: { count: 1, days: 7, orders: [] },
    };
    const { unmount } = render(
      <MemoryRouter>
        <AttentionCards attention={attention} pending={null} mayRedo />
      </MemoryRouter>,
    );
    const card = () => screen.getByRole('region', { name: 'Not made by the gateway (7 days)' });
    expect(card()).toHaveTextContent('nothing moved. Do them again if they are still due.');
    unmount();
    render(
      <MemoryRouter>
        <AttentionCards attention={attention} pending={null} mayRedo={false} />
      </MemoryRouter>,
    );
    expect(card()).toHaveTextContent(
      'nothing moved. Ask finance to do them again if they are still due.',
    );
    expect(card()).not.toHaveTextContent('Do them again');
  });

  it('when the BFF does not count follow-ups not made, then no such card is shown', () => {
    render(
      <MemoryRouter>
        <AttentionCards mayRedo attention={{ unknown: 0, drift: 0, cap: 1000 }} pending={null} />
      </MemoryRouter>,
    );
    expect(screen.queryByRole('region', { name: /Not made/ })).not.toBeInTheDocument();
  });
  it('when payouts were paid after a not-applied verdict, then a card beside the approval count says how many (at least, when capped), calls for attention and links to them', () => {
    const { rerender } = render(
      <MemoryRouter>
        <AttentionCards
          mayRedo
          attention={{ unknown: 0, drift: 0, cap: 1000 }}
          pending={{ count: 0, capped: false, href: '/payouts', mine: false }}
          paidLate={{ count: 3, capped: false, days: 30, href: '/payouts?view=all&paidLate=true' }}
        />
      </MemoryRouter>,
    );
    const regions = screen.getAllByRole('region').map((r) => r.getAttribute('aria-labelledby'));
    expect(regions.slice(-2)).toEqual([
      'metric-payouts-awaiting-approval',
      'metric-payouts-paid-after-a-not-applied-verdict',
    ]);
    const card = screen.getByRole('region', { name: 'Payouts paid after a not-applied verdict' });
    expect(within(card).getByText('3')).toBeInTheDocument();
    expect(card).toHaveStyle({ borderLeftWidth: '4px' });
    expect(card).toHaveTextContent('check that none was prepared and paid again');
    expect(
      within(card).getByRole('link', { name: 'Show payouts paid after a not-applied verdict' }),
    ).toHaveAttribute('href', '/payouts?view=all&paidLate=true');
    rerender(
      <MemoryRouter>
        <AttentionCards
          mayRedo
          attention={{ unknown: 0, drift: 0, cap: 1000 }}
          pending={null}
          paidLate={{ count: 50, capped: true, days: 30, href: '/payouts?view=all&paidLate=true' }}
        />
      </MemoryRouter>,
    );
    expect(
      within(
        screen.getByRole('region', { name: 'Payouts paid after a not-applied verdict' }),
      ).getByText('50+'),
    ).toBeInTheDocument();
  });

  it('when payouts have an unknown outcome, then a card after the approval count says how many (at least, when capped) and links to them; none for readers who see no payouts', () => {
    const attention = { unknown: 0, drift: 0, cap: 1000 };
    const unknown = { count: 50, capped: true, href: '/payouts?view=all&state=unknown' };
    const { rerender } = render(
      <MemoryRouter>
        <AttentionCards
          mayRedo
          attention={attention}
          pending={{ count: 0, capped: false, href: '/payouts', mine: false }}
          unknownPayouts={unknown}
          paidLate={{ count: 0, capped: false, days: 30, href: '/payouts?view=all&paidLate=true' }}
        />
      </MemoryRouter>,
    );
    const regions = screen.getAllByRole('region').map((r) => r.getAttribute('aria-labelledby'));
    expect(regions.slice(-3)).toEqual([
      'metric-payouts-awaiting-approval',
      'metric-payouts-with-an-unknown-outcome',
      'metric-payouts-paid-after-a-not-applied-verdict',
    ]);
    const card = screen.getByRole('region', { name: 'Payouts with an unknown outcome' });
    expect(within(card).getByText('50+')).toBeInTheDocument();
    expect(card).toHaveStyle({ borderLeftWidth: '4px' });
    expect(
      within(card).getByRole('link', { name: 'Show payouts with an unknown outcome' }),
    ).toHaveAttribute('href', '/payouts?view=all&state=unknown');
    rerender(
      <MemoryRouter>
        <AttentionCards mayRedo attention={attention} pending={null} unknownPayouts={null} />
      </MemoryRouter>,
    );
    expect(screen.queryByRole('region', { name: 'Payouts with an unknown outcome' })).toBeNull();
  });

  it('when the approval count is the reader’s own queue (ops), then it says it holds payouts to approve and to pay again; for the others, the link says it opens the payouts', () => {
    const attention = { unknown: 0, drift: 0, cap: 1000 };
    const { rerender } = render(
      <MemoryRouter>
        <AttentionCards
          mayRedo
          attention={attention}
          pending={{
            count: 2,
            capped: false,
            href: '/payouts?view=awaiting-my-approval',
            mine: true,
          }}
        />
      </MemoryRouter>,
    );
    const mine = screen.getByRole('region', { name: 'Payouts awaiting your approval' });
    expect(mine).toHaveTextContent('waiting for you to approve, or to pay again');
    expect(within(mine).getByRole('link')).toHaveTextContent('Open the approval queue');
    rerender(
      <MemoryRouter>
        <AttentionCards
          mayRedo
          attention={attention}
          pending={{ count: 2, capped: false, href: '/payouts', mine: false }}
        />
      </MemoryRouter>,
    );
    const all = screen.getByRole('region', { name: 'Payouts awaiting approval' });
    expect(all).toHaveTextContent('Prepared by one ops user, waiting for a second.');
    expect(within(all).getByRole('link')).toHaveTextContent('Open the payouts');
  });
});
