import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { formatDateAndTime } from '../lib/format';
import { DateTime } from './date-time';

const VALUE = '2026-11-25T17:48:21.000Z';

describe('DateTime', () => {
  it('when shown, then its time zone is visible after the time', () => {
    const { zone, time } = formatDateAndTime(VALUE);
    render(<DateTime value={VALUE} />);
    const shown = screen.getByText(
      (_, element) =>
        element?.tagName === 'TIME' && element.textContent.endsWith(`${time} ${zone}`),
    );
    expect(shown).toHaveAttribute('title', '2026-11-25 17:48:21 UTC');
  });

  it('when the column is narrow, then the line may break between the date and the time, never inside either', () => {
    const { date, time } = formatDateAndTime(VALUE);
    const { container } = render(<DateTime value={VALUE} />);
    const element = container.querySelector('time')!;
    expect(element.style.whiteSpace).toBe('');
    const whole = [...element.querySelectorAll('span')].filter(
      (span) => span.style.whiteSpace === 'nowrap',
    );
    expect(whole.map((span) => span.textContent)).toEqual([
      expect.stringContaining(date),
      expect.stringContaining(time),
    ]);
    expect(whole[0]!.textContent).not.toContain(time);
  });
});
