import { act, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeBff, makeTransaction, makeUser } from '../test/fake-bff';
import { renderApp } from '../test/render-app';
import { CopyableText } from '../components/copyable-text';
import { formatDateTime } from '../lib/format';
import { AppThemeProvider } from './app-theme-provider';

const ID = '00000000-0000-4000-8000-000000000001';

/** The style rules the page's stylesheets apply on paper (`@media print`), as jsdom parsed them. */
function printRules(): CSSStyleRule[] {
  const rules: CSSStyleRule[] = [];
  for (const sheet of Array.from(document.styleSheets)) {
    for (const rule of Array.from(sheet.cssRules)) {
      if (rule instanceof CSSMediaRule && rule.media.mediaText === 'print') {
        for (const inner of Array.from(rule.cssRules)) {
          if (inner instanceof CSSStyleRule) rules.push(inner);
        }
      }
    }
  }
  return rules;
}

function matches(element: Element, selector: string): boolean {
  try {
    return element.matches(selector);
  } catch {
    return false; // a selector of pseudo-elements (::after) names no element
  }
}

/** The value a print rule gives `property` on `element` itself (the last such rule), or null. */
function printValue(element: Element, property: string): string | null {
  let value: string | null = null;
  for (const rule of printRules()) {
    const given = rule.style.getPropertyValue(property);
    if (given !== '' && matches(element, rule.selectorText)) value = given;
  }
  return value;
}

/** Whether `element` or a box around it is left out on paper. */
function hiddenInPrint(element: Element): boolean {
  for (let node: Element | null = element; node !== null; node = node.parentElement) {
    if (printValue(node, 'display') === 'none') return true;
  }
  return false;
}

function renderOrder() {
  return renderApp(
    `/transactions/${ID}`,
    new FakeBff({
      signedInAs: 'me@example.com',
      users: [makeUser({ email: 'me@example.com', name: 'Me', roles: ['support', 'finance'] })],
      transactions: [makeTransaction(1, { amount: '20.00', cardRefId: 'card-ref-0001' })],
    }),
  );
}

afterEach(() => {
  vi.useRealTimers();
});

describe('printing a detail page', () => {
  it('when an order is printed, then its content prints and the bar, menu, actions and live indicator do not', async () => {
    renderOrder();
    const heading = await screen.findByRole('heading', { level: 1, name: 'Order 900001' });
    const actions = [
      await screen.findByRole('button', { name: 'Refresh status' }),
      screen.getByRole('button', { name: 'Return' }),
    ];
    for (const button of actions) expect(hiddenInPrint(button), button.textContent).toBe(true);
    // every control: the copy buttons beside the ids, the account menu, the way back to the list
    for (const button of screen.getAllByRole('button')) {
      expect(hiddenInPrint(button), button.getAttribute('aria-label') ?? button.textContent).toBe(
        true,
      );
    }
    expect(hiddenInPrint(screen.getByRole('link', { name: 'All transactions' }))).toBe(true);
    expect(hiddenInPrint(screen.getByRole('banner'))).toBe(true);
    for (const nav of screen.getAllByRole('navigation', { name: 'Main' })) {
      expect(hiddenInPrint(nav)).toBe(true);
    }
    const live = screen
      .getAllByRole('status')
      .find((el) => /Live|Connecting|Not live/.test(el.textContent));
    expect(live).toBeDefined();
    expect(hiddenInPrint(live!)).toBe(true);

    // What the order says prints: its title, ids, amounts, card and customer, operations, timeline.
    expect(hiddenInPrint(heading)).toBe(false);
    for (const name of ['Amounts', 'Card and customer', 'Order', 'Operations', 'Timeline']) {
      expect(hiddenInPrint(screen.getByRole('region', { name })), name).toBe(false);
    }
    expect(hiddenInPrint(screen.getByRole('table', { name: 'Operations' }))).toBe(false);
    // a timeline entry's details: left out while closed, printed once opened
    const details = within(screen.getByRole('region', { name: 'Timeline' }))
      .getByText('Details')
      .closest('details')!;
    expect(hiddenInPrint(details)).toBe(true);
    details.open = true;
    expect(hiddenInPrint(details)).toBe(false);
  });

  it('when an order is printed, then its tables wrap in the page’s width instead of scrolling sideways', async () => {
    renderOrder();
    const table = await screen.findByRole('table', { name: 'Operations' });
    const box = screen.getByRole('region', { name: /^Operations \(scrolls sideways/ });
    expect(printValue(box, 'overflow')).toBe('visible');
    expect(printValue(table, 'width')).toBe('100%');
    const reason = within(table).getAllByRole('cell')[4]!;
    expect(printValue(reason, 'white-space')).toBe('normal');
    expect(printValue(reason, 'min-width')).toMatch(/^0(px)?$/);
    // amounts stay whole
    expect(printValue(within(table).getAllByRole('cell')[2]!, 'white-space')).toBe('nowrap');
  });

  it('when a page is printed, then it is black on white and its links print as their text', async () => {
    renderOrder();
    await screen.findByRole('heading', { level: 1, name: 'Order 900001' });
    expect(printValue(document.body, 'color')).toMatch(/^(#000|black|rgb\(0, 0, 0\))$/);
    expect(printValue(document.body, 'background')).toMatch(/#fff|white|rgb\(255, 255, 255\)/);
    const link = screen.getByRole('link', { name: 'card-ref-0001' });
    expect(hiddenInPrint(link)).toBe(false);
    expect(printValue(link, 'text-decoration')).toBe('none');
    const afterLinks = printRules().find((rule) => rule.selectorText === 'a[href]::after');
    expect(afterLinks?.style.getPropertyValue('content')).toBe('none');
  });

  it('when a page is printed, then a line says when and by whom, taken again as printing starts', async () => {
    renderOrder();
    await screen.findByRole('heading', { level: 1, name: 'Order 900001' });
    const line = screen.getByText(/^Printed .* by Me \(me@example\.com\)$/);
    // Only on paper: not shown on the screen, shown in print.
    expect(line).not.toBeVisible();
    expect(printValue(line, 'display')).toBe('block');
    expect(hiddenInPrint(line)).toBe(false);

    const printedAt = new Date('2031-02-03T04:05:06Z');
    vi.useFakeTimers({ toFake: ['Date'], now: printedAt });
    act(() => {
      window.dispatchEvent(new Event('beforeprint'));
    });
    expect(line.textContent).toContain(`Printed ${formatDateTime(printedAt)}`);
  });

  it('when a copyable address is printed, then its whole text prints instead of the one-line field', () => {
    const address = `https://pay.example.com/hosted/${'a'.repeat(120)}`;
    render(
      <AppThemeProvider>
        <CopyableText label="Page address" value={address} />
      </AppThemeProvider>,
    );
    const field = screen.getByRole('textbox', { name: 'Page address' });
    expect(field).toBeVisible();
    expect(hiddenInPrint(field)).toBe(true);
    const text = screen.getByText(address);
    expect(text).not.toBeVisible();
    expect(printValue(text.parentElement!, 'display')).toBe('block');
    expect(hiddenInPrint(text)).toBe(false);
  });
});
