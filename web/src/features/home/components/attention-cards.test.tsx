import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { AttentionCards } from './attention-cards';

describe('the attention cards', () => {
  it('when orders have an unknown outcome, then the card counts them, says a follow-up counts too, and links to the list’s Unknown outcome filter', () => {
    render(
      <MemoryRouter>
        <AttentionCards attention={{ unknown: 2, drift: 0, cap: 1000 }} pending={null} />
      </MemoryRouter>,
    );
    const card = screen.getByRole('region', { name: 'Unknown outcome' });
    expect(within(card).getByText('2')).toBeInTheDocument();
    expect(card).toHaveTextContent('capture, return, void or card reference');
    expect(
      within(card).getByRole('link', { name: 'Show orders with an unknown outcome' }),
    ).toHaveAttribute('href', '/transactions?status=unknown');
  });
});
