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
  it('when a status check names a stage, then it reads as the page header says it, not as codes', () => {
    render(
      <Timeline
        entries={[
          entry(1, 'status: approved (partially_returned)'),
          entry(2, 'status: declined'),
          entry(3, 'callback: approved, not confirmed by status'),
        ]}
      />,
    );
    expect(screen.getByText('Status: Approved · partially returned')).toBeInTheDocument();
    expect(screen.getByText('Status: Declined')).toBeInTheDocument();
    expect(screen.getByText('callback: approved, not confirmed by status')).toBeInTheDocument();
    expect(screen.queryByText(/partially_returned/)).toBeNull();
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
    expect(screen.getByText('return €1,234.50 requested')).toBeInTheDocument();
    expect(screen.getByText('callback: capture $0.05 approved')).toBeInTheDocument();
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
      'capture €5.00 requested',
      'capture €5.00 requested',
      'capture €5.00 requested',
      'capture €5.00 requested',
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
