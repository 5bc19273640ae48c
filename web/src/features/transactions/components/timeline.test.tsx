import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
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
});
