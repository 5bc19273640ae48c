import { screen, waitFor } from '@testing-library/react';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeBff, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

// The screens are lazy chunks: transform them once up front, so that on a busy machine the first
// test's findBy waits for the screen, not for the compiler.
beforeAll(async () => {
  await Promise.all([
    import('../../shell/routes/shell-route'),
    import('./transactions-route'),
    import('../../audit/routes/audit-route'),
  ]);
}, 60_000);

/** A phone: every `max-width` query matches, `min-width` and colour-scheme queries do not. */
function narrowScreen() {
  vi.spyOn(window, 'matchMedia').mockImplementation((media: string): MediaQueryList =>
    Object.assign(new EventTarget(), {
      media,
      matches: media.includes('max-width'),
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
    }),
  );
}

const support = () =>
  new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', roles: ['support', 'auditor'] })],
  });

describe('the filter bar', () => {
  it('when the screen is wide, then the filters are open and there is no toggle', async () => {
    renderApp('/transactions', support());
    await screen.findByRole('table', { name: 'Transactions' });
    expect(screen.getByLabelText('Status')).toBeVisible();
    expect(screen.queryByRole('button', { name: /^Filters/ })).toBeNull();
  });

  it('when the screen is narrow, then the transactions filters fold behind a toggle that counts the active ones', async () => {
    narrowScreen();
    const app = renderApp('/transactions?status=declined&currency=EUR&sort=amount_asc', support());
    await screen.findByRole('table', { name: 'Transactions' });
    const toggle = screen.getByRole('button', { name: 'Filters (2 active)' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.getByLabelText('Status')).not.toBeVisible();
    await app.user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await waitFor(() => {
      expect(screen.getByLabelText('Status')).toBeVisible();
    });
    await app.user.selectOptions(screen.getByLabelText('Status'), 'approved');
    await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?status=approved&currency=EUR&sort=amount_asc');
    });
    // Applied: the bar folds away again so the rows come first.
    expect(screen.getByRole('button', { name: 'Filters (2 active)' })).toHaveAttribute(
      'aria-expanded',
      'false',
    );
  });

  it('when the screen is narrow, then the transactions search stays in view above the folded filters, and Enter applies it', async () => {
    narrowScreen();
    const app = renderApp('/transactions?currency=EUR', support());
    await screen.findByRole('table', { name: 'Transactions' });
    const toggle = screen.getByRole('button', { name: 'Filters (1 active)' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.getByLabelText('Status')).not.toBeVisible();
    const search = screen.getByRole('textbox', { name: 'Search' });
    expect(search).toBeVisible();
    await app.user.type(search, '4242{Enter}');
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?q=4242&currency=EUR');
    });
    // The search in view is not counted among the folded filters; it keeps what was applied.
    expect(screen.getByRole('button', { name: 'Filters (1 active)' })).toHaveAttribute(
      'aria-expanded',
      'false',
    );
    expect(screen.getByRole('textbox', { name: 'Search' })).toHaveValue('4242');
    expect(screen.getAllByRole('textbox', { name: 'Search' })).toHaveLength(1);
  });

  it('when the screen is narrow, then the audit log filters fold the same way', async () => {
    narrowScreen();
    const app = renderApp('/audit?outcome=success', support());
    await screen.findByRole('table', { name: 'Audit log' });
    const toggle = screen.getByRole('button', { name: 'Filters (1 active)' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await app.user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
  });

  it('when drift is chosen as a filter, then it goes into the URL and the request, and only flagged orders are listed', async () => {
    const bff = support();
    const app = renderApp('/transactions', bff);
    await screen.findByRole('table', { name: 'Transactions' });
    await app.user.selectOptions(screen.getByLabelText('Drift'), 'true');
    await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?drift=true');
    });
    expect(await screen.findByText('1 transaction matches')).toBeInTheDocument();
    expect(bff.requestsTo('GET', '/api/transactions').at(-1)!.query.get('drift')).toBe('true');
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      '/api/transactions/export?drift=true&sort=created_desc&delimiter=comma',
    );
  });

  it('when “Not made by the gateway” is chosen as a follow-ups filter, then it goes into the URL, the request and the export, and Clear takes it out', async () => {
    const bff = support();
    const app = renderApp('/transactions', bff);
    await screen.findByRole('table', { name: 'Transactions' });
    await app.user.selectOptions(screen.getByLabelText('Follow-ups'), 'Not made, last 7 days');
    expect(
      screen.getByText(
        'Orders with a return, capture, void, card reference or rebill staff asked for in the last 7 days that the gateway did not make and no one has made again since.',
      ),
    ).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?notMade=true');
    });
    await waitFor(() => {
      expect(bff.requestsTo('GET', '/api/transactions').at(-1)!.query.get('notMade')).toBe('true');
    });
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      '/api/transactions/export?notMade=true&sort=created_desc&delimiter=comma',
    );
    await app.user.click(screen.getByRole('button', { name: 'Clear' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions');
    });
    expect(screen.getByLabelText('Follow-ups')).toHaveValue('');
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      '/api/transactions/export?sort=created_desc&delimiter=comma',
    );
  });

  it('when a shared link holds notMade=true, then the form shows the filter chosen and the list asks for it', async () => {
    const bff = support();
    renderApp('/transactions?notMade=true&status=approved', bff);
    await screen.findByRole('table', { name: 'Transactions' });
    expect(screen.getByLabelText('Follow-ups')).toHaveValue('true');
    const query = bff.requestsTo('GET', '/api/transactions').at(-1)!.query;
    expect([query.get('notMade'), query.get('status')]).toEqual(['true', 'approved']);
  });

  it('when a German types the amount range with decimal commas, then the plain amounts go into the URL; thousands separators are refused by name', async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('de-DE');
    const bff = support();
    const app = renderApp('/transactions', bff);
    await screen.findByRole('table', { name: 'Transactions' });
    await app.user.type(screen.getByLabelText('Amount from'), '1.234,5');
    await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(screen.getByText('Enter the amount without thousands separators.')).toBeInTheDocument();
    expect(app.location()).toBe('/transactions');
    await app.user.clear(screen.getByLabelText('Amount from'));
    await app.user.type(screen.getByLabelText('Amount from'), '9,5');
    await app.user.type(screen.getByLabelText('Amount to'), '19,99');
    await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?amountMin=9.5&amountMax=19.99');
    });
    // Applying keeps the amounts in the form they were typed in, not the URL's.
    expect(screen.getByLabelText('Amount from')).toHaveValue('9,5');
    expect(screen.getByLabelText('Amount to')).toHaveValue('19,99');
  });

  it('when a German types an amount that is not one, then the rule gives its example with a decimal comma; an amount from a link shows with one', async () => {
    vi.spyOn(navigator, 'language', 'get').mockReturnValue('de-DE');
    const app = renderApp('/transactions?amountMin=10.5', support());
    await screen.findByRole('table', { name: 'Transactions' });
    expect(screen.getByLabelText('Amount from')).toHaveValue('10,5');
    await app.user.type(screen.getByLabelText('Amount to'), 'zehn');
    expect(
      screen.getByText('An amount with at most 2 decimals, like 10 or 19,99.'),
    ).toBeInTheDocument();
  });

  it('when a search is applied with Enter, then the focus stays in the search field and the form follows the URL', async () => {
    const app = renderApp('/transactions', support());
    await screen.findByRole('table', { name: 'Transactions' });
    const search = screen.getByLabelText('Search');
    await app.user.type(search, '900001{Enter}');
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?q=900001');
    });
    expect(screen.getByLabelText('Search')).toBe(search);
    expect(search).toHaveFocus();
    await app.user.click(screen.getByRole('button', { name: 'Clear' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions');
    });
    expect(search).toHaveValue('');
  });

  it('when audit filters are applied, then the focus stays on “Apply filters”', async () => {
    const app = renderApp('/audit', support());
    await screen.findByRole('table', { name: 'Audit log' });
    await app.user.type(screen.getByLabelText('Actor'), 'sam@example.com');
    const apply = screen.getByRole('button', { name: 'Apply filters' });
    await app.user.click(apply);
    await waitFor(() => {
      expect(app.location()).toContain('actor=sam%40example.com');
    });
    expect(screen.getByRole('button', { name: 'Apply filters' })).toBe(apply);
    expect(apply).toHaveFocus();
  });

  it('when the screen is narrow and filters are applied, then the bar folds and the focus goes to its toggle', async () => {
    narrowScreen();
    const app = renderApp('/transactions', support());
    await screen.findByRole('table', { name: 'Transactions' });
    await app.user.click(screen.getByRole('button', { name: 'Filters (0 active)' }));
    await app.user.selectOptions(screen.getByLabelText('Status'), 'approved');
    await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?status=approved');
    });
    expect(screen.getByRole('button', { name: 'Filters (1 active)' })).toHaveFocus();
  });
});
