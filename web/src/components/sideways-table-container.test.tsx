import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SidewaysTableContainer } from './sideways-table-container';

/**
 * jsdom lays nothing out: the box's widths are given, and a ResizeObserver that reports at once
 * on observing (as browsers do).
 */
function laidOut(widths: { scrollWidth: number; clientWidth: number }) {
  vi.spyOn(HTMLElement.prototype, 'scrollWidth', 'get').mockReturnValue(widths.scrollWidth);
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(widths.clientWidth);
  vi.stubGlobal(
    'ResizeObserver',
    class {
      constructor(private readonly callback: () => void) {}
      observe() {
        this.callback();
      }
      disconnect() {
        // Nothing to let go of: this one watches nothing.
      }
    },
  );
}

const WORDS = 'Scroll sideways for more columns →';

function table() {
  return (
    <SidewaysTableContainer label="Transactions">
      <table aria-label="Transactions">
        <tbody>
          <tr>
            <td>1000331</td>
          </tr>
        </tbody>
      </table>
    </SidewaysTableContainer>
  );
}

describe('a table that may be wider than the screen', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it('when the table is wider than its box (a phone), then a line above it says to scroll sideways (QA: the edge shadow alone went unseen)', async () => {
    laidOut({ scrollWidth: 954, clientWidth: 356 });
    render(table());
    expect(await screen.findByText(WORDS)).toBeVisible();
    expect(
      screen.getByRole('region', {
        name: 'Transactions (scrolls sideways when wider than the screen)',
      }),
    ).toContainElement(screen.getByRole('table', { name: 'Transactions' }));
  });

  it('when the table fits its box, then nothing is said', () => {
    laidOut({ scrollWidth: 900, clientWidth: 900 });
    render(table());
    expect(screen.queryByText(WORDS)).not.toBeInTheDocument();
  });
});
