import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { isoToLocalInput } from '../../../lib/local-datetime';
import { resolveCreatedPreset } from '../api/created-presets';
import { FakeBff, makeUser, makeView } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

// The screens are lazy chunks: transform them once up front, so that on a busy machine the first
// test's findBy waits for the screen, not for the compiler.
beforeAll(async () => {
  await Promise.all([
    import('../../shell/routes/shell-route'),
    import('./transactions-route'),
    import('../components/saved-views-menu'),
  ]);
}, 60_000);

function bffAs(
  roles: Parameters<typeof makeUser>[0]['roles'],
  options: ConstructorParameters<typeof FakeBff>[0] = {},
) {
  return new FakeBff({
    signedInAs: 'me@example.com',
    users: [makeUser({ email: 'me@example.com', name: 'Me', roles })],
    ...options,
  });
}

async function openViews(app: ReturnType<typeof renderApp>) {
  // The Views button, not the table: a filter that matches none of the fake orders (a window
  // resolved from today's date) shows no table.
  await app.user.click(await screen.findByRole('button', { name: 'Views' }));
  return screen.findByRole('menu', { name: 'Saved views' });
}

describe('saved views on the transactions screen', () => {
  it('when the views are on their way, then the menu says so; the screen itself did not ask for them', async () => {
    const bff = bffAs(['support']).on('GET /api/views', () => 'hang');
    const app = renderApp('/transactions', bff);
    await screen.findByRole('table', { name: 'Transactions' });
    expect(bff.requestsTo('GET', '/api/views')).toHaveLength(0);
    const menu = await openViews(app);
    expect(await within(menu).findByText('Loading views…')).toBeInTheDocument();
    expect(bff.requestsTo('GET', '/api/views')[0]!.query.get('screen')).toBe('transactions');
  });

  it('when no view is shared with the roles, then the menu says so and still offers to save', async () => {
    const app = renderApp('/transactions', bffAs(['support']));
    const menu = await openViews(app);
    expect(await within(menu).findByText('No saved views yet')).toBeInTheDocument();
    expect(within(menu).getByRole('menuitem', { name: 'Save current view…' })).toBeInTheDocument();
  });

  it('when the views cannot be loaded, then the menu says so and choosing the line retries', async () => {
    let fail = true;
    const bff = bffAs(['support']).on('GET /api/views', () =>
      fail
        ? { status: 500, body: { error: { code: 'INTERNAL', message: 'boom', requestId: 'r-v' } } }
        : { status: 200, body: { items: [makeView(1, { name: 'Declined' })] } },
    );
    const app = renderApp('/transactions', bff);
    const menu = await openViews(app);
    const failed = await within(menu).findByText('Could not load the views');
    fail = false;
    await app.user.click(failed);
    expect(await within(menu).findByText('Declined')).toBeInTheDocument();
  });

  it('when views are shared with the roles, then they are listed by role and applying one sets the URL and the request', async () => {
    const bff = bffAs(['support', 'finance'], {
      views: [
        makeView(1, {
          name: 'Declined in EUR',
          query: 'status=declined&currency=EUR',
          role: 'support',
        }),
        makeView(2, {
          name: 'Big amounts',
          query: 'amountMin=30&sort=amount_desc',
          role: 'finance',
        }),
        makeView(3, { name: 'Ops only', role: 'ops' }),
      ],
    });
    const app = renderApp('/transactions', bff);
    const menu = await openViews(app);
    await within(menu).findByText('Declined in EUR');
    expect(within(menu).getByText('For Support')).toBeInTheDocument();
    expect(within(menu).getByText('For Finance')).toBeInTheDocument();
    expect(within(menu).queryByText('Ops only')).toBeNull();
    // Someone else's view: no delete.
    expect(within(menu).queryByRole('button', { name: /Delete view/ })).toBeNull();
    expect(within(menu).getByRole('menuitem', { name: /Big amounts/ })).not.toHaveAttribute(
      'aria-keyshortcuts',
    );
    await app.user.click(within(menu).getByRole('menuitem', { name: /Big amounts/ }));
    await waitFor(() => {
      expect(app.location()).toBe('/transactions?amountMin=30&sort=amount_desc');
    });
    await waitFor(() => {
      const last = bff.requestsTo('GET', '/api/transactions').at(-1)!.query;
      expect([last.get('amountMin'), last.get('sort')]).toEqual(['30', 'amount_desc']);
    });
    expect(screen.getByLabelText('Amount from')).toHaveValue('30');
    const again = await openViews(app);
    expect(within(again).getByRole('menuitem', { name: /Big amounts/ })).toHaveClass(
      'Mui-selected',
    );
  });

  it('when the current filters are saved under a name for a role, then the server gets them and the view is listed', async () => {
    const bff = bffAs(['support', 'finance']);
    const app = renderApp('/transactions?status=declined&currency=EUR&sort=amount_asc', bff);
    const menu = await openViews(app);
    await app.user.click(within(menu).getByRole('menuitem', { name: 'Save current view…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Save current view' });
    expect(
      within(dialog).getByText('Status Declined · Currency EUR · smallest amount first'),
    ).toBeInTheDocument();
    expect(dialog).not.toHaveTextContent('status=declined');
    await app.user.type(within(dialog).getByLabelText(/Name/), 'Declined EUR');
    await app.user.selectOptions(within(dialog).getByLabelText('Shared with'), 'finance');
    // Sent twice before the first reply (a double click, Enter twice): one request.
    const form = within(dialog).getByRole('button', { name: 'Save view' }).closest('form')!;
    fireEvent.submit(form);
    fireEvent.submit(form);
    expect(
      await screen.findByText('Saved the view “Declined EUR” for Finance.'),
    ).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/views')).toHaveLength(1);
    expect(bff.requestsTo('POST', '/api/views')[0]!.body).toEqual({
      screen: 'transactions',
      name: 'Declined EUR',
      role: 'finance',
      query: 'status=declined&currency=EUR&sort=amount_asc',
    });
    await waitFor(() => {
      expect(screen.queryByRole('dialog', { name: 'Save current view' })).toBeNull();
    });
    const again = await openViews(app);
    expect(await within(again).findByRole('menuitem', { name: /Declined EUR/ })).toHaveClass(
      'Mui-selected',
    );
  });

  it('when the name is empty or already taken for that role, then the name field says so', async () => {
    const bff = bffAs(['support'], { views: [makeView(1, { name: 'Mine', role: 'support' })] });
    const app = renderApp('/transactions', bff);
    const menu = await openViews(app);
    await app.user.click(within(menu).getByRole('menuitem', { name: 'Save current view…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Save current view' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Save view' }));
    expect(within(dialog).getByText('Name is required.')).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/views')).toHaveLength(0);
    await app.user.type(within(dialog).getByLabelText(/Name/), 'mine');
    await app.user.click(within(dialog).getByRole('button', { name: 'Save view' }));
    expect(
      await within(dialog).findByText('The support role already has a view named like this.'),
    ).toBeInTheDocument();
  });

  it('when the server says the name is taken and the name or the role is changed, then its words go at once', async () => {
    const bff = bffAs(['support', 'finance'], {
      views: [makeView(1, { name: 'Mine', role: 'support' })],
    });
    const app = renderApp('/transactions', bff);
    const menu = await openViews(app);
    await app.user.click(within(menu).getByRole('menuitem', { name: 'Save current view…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Save current view' });
    const name = within(dialog).getByLabelText(/Name/);
    const taken = 'The support role already has a view named like this.';
    await app.user.type(name, 'mine');
    await app.user.click(within(dialog).getByRole('button', { name: 'Save view' }));
    await waitFor(() => {
      expect(name).toHaveAccessibleDescription(taken);
    });
    await app.user.type(name, 's');
    expect(name).toHaveAccessibleDescription('Up to 60 characters, unique for the role.');
    expect(name).toHaveAttribute('aria-invalid', 'false');
    await app.user.clear(name);
    await app.user.type(name, 'mine');
    await app.user.click(within(dialog).getByRole('button', { name: 'Save view' }));
    await waitFor(() => {
      expect(name).toHaveAccessibleDescription(taken);
    });
    await app.user.selectOptions(within(dialog).getByLabelText('Shared with'), 'finance');
    expect(name).not.toHaveAccessibleDescription(taken);
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('when the creator deletes their view after confirming, then it is gone for everyone', async () => {
    const bff = bffAs(['support'], {
      views: [
        makeView(1, { name: 'Mine', createdBy: { id: 'u-me', email: 'me@example.com' } }),
        makeView(2, { name: 'Theirs' }),
      ],
    });
    const app = renderApp('/transactions', bff);
    const menu = await openViews(app);
    await app.user.click(await within(menu).findByRole('button', { name: 'Delete view Mine' }));
    const confirm = await screen.findByRole('dialog', { name: 'Delete this view?' });
    expect(confirm).toHaveTextContent('“Mine” disappears for everyone with the Support role.');
    await app.user.click(within(confirm).getByRole('button', { name: 'Delete view' }));
    expect(await screen.findByText('Deleted the view “Mine”.')).toBeInTheDocument();
    expect(
      bff.requestsTo('DELETE', '/api/views/00000000-0000-4000-9000-000000000001'),
    ).toHaveLength(1);
    expect(bff.views.views.map((v) => v.name)).toEqual(['Theirs']);
    expect(app.location()).toBe('/transactions');
  });

  it('when the creator presses Delete on their view in the menu, then the same confirmation asks; Cancel keeps it and the keyboard on it, Delete view deletes it', async () => {
    const bff = bffAs(['support'], {
      views: [
        makeView(1, { name: 'Alpha' }),
        makeView(2, { name: 'Mine', createdBy: { id: 'u-me', email: 'me@example.com' } }),
      ],
    });
    const app = renderApp('/transactions', bff);
    let menu = await openViews(app);
    const mine = await within(menu).findByRole('menuitem', { name: /Mine/ });
    expect(mine).toHaveAttribute('aria-keyshortcuts', 'Delete');
    expect(within(mine).getByRole('button', { name: 'Delete view Mine' })).toBeInTheDocument();
    // Alpha, first, is someone else's: the key does nothing there.
    await app.user.keyboard('{Home}');
    expect(within(menu).getByRole('menuitem', { name: /Alpha/ })).toHaveFocus();
    await app.user.keyboard('{Delete}');
    expect(screen.queryByRole('dialog', { name: 'Delete this view?' })).toBeNull();
    await app.user.keyboard('{ArrowDown}');
    expect(mine).toHaveFocus();
    await app.user.keyboard('{Delete}');
    let confirm = await screen.findByRole('dialog', { name: 'Delete this view?' });
    expect(confirm).toHaveTextContent('“Mine” disappears for everyone with the Support role.');
    // The safe choice has the focus: Enter cancels, and the menu is back, on the view.
    await waitFor(() => {
      expect(within(confirm).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    });
    await app.user.keyboard('{Enter}');
    menu = await screen.findByRole('menu', { name: 'Saved views' });
    await waitFor(() => {
      expect(within(menu).getByRole('menuitem', { name: /Mine/ })).toHaveFocus();
    });
    expect(
      bff.requestsTo('DELETE', '/api/views/00000000-0000-4000-9000-000000000002'),
    ).toHaveLength(0);
    await waitFor(() => {
      expect(screen.queryByRole('dialog', { name: 'Delete this view?' })).toBeNull();
    });
    // Backspace, the delete key of a Mac keyboard, asks the same.
    await app.user.keyboard('{Backspace}');
    confirm = await screen.findByRole('dialog', { name: 'Delete this view?' });
    const deleteView = within(confirm).getByRole('button', { name: 'Delete view' });
    await waitFor(() => {
      expect(within(confirm).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    });
    await app.user.keyboard('{Tab}');
    expect(deleteView).toHaveFocus();
    await app.user.keyboard('{Enter}');
    expect(await screen.findByText('Deleted the view “Mine”.')).toBeInTheDocument();
    expect(
      bff.requestsTo('DELETE', '/api/views/00000000-0000-4000-9000-000000000002'),
    ).toHaveLength(1);
    expect(bff.views.views.map((v) => v.name)).toEqual(['Alpha']);
    expect(app.location()).toBe('/transactions');
    // the menu closes and the keyboard is back on the Views button, not on the page's body
    await waitFor(() => {
      expect(screen.getByRole('button', { name: 'Views' })).toHaveFocus();
    });
    expect(screen.queryByRole('menu', { name: 'Saved views' })).toBeNull();
  });

  it('when the list of views is refused (403), then the menu says the roles do not allow it', async () => {
    const bff = bffAs(['support']).on('GET /api/views', () => ({
      status: 403,
      body: { error: { code: 'FORBIDDEN', message: 'no', requestId: 'r' } },
    }));
    const app = renderApp('/transactions', bff);
    const menu = await openViews(app);
    expect(await within(menu).findByText('Could not load the views')).toBeInTheDocument();
    expect(menu).toHaveTextContent(/not allow/i);
  });

  describe('with a relative creation window', () => {
    // The browser's clock set to noon tomorrow (it moves on from there): a window is resolved
    // from it, never from a midnight the test might run across. Forward, not back: the fake
    // BFF's session and data were made on the real clock.
    const real = new Date();
    const noon = new Date(real.getFullYear(), real.getMonth(), real.getDate() + 1, 12, 0);
    const lastWeek = resolveCreatedPreset('last7d', noon);
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
      vi.setSystemTime(noon);
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('when "Last 7 days" is chosen and the view saved, then the view holds the window, not the dates', async () => {
      const bff = bffAs(['support']);
      const app = renderApp('/transactions?status=declined', bff);
      await screen.findByRole('table', { name: 'Transactions' });
      await app.user.selectOptions(screen.getByLabelText('Created (your time)'), 'last7d');
      expect(screen.getByLabelText('Created from (your time)')).toHaveValue(
        isoToLocalInput(lastWeek.createdFrom),
      );
      expect(screen.getByLabelText('Created before (your time)')).toHaveValue(
        isoToLocalInput(lastWeek.createdTo),
      );
      await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
      await waitFor(() => {
        expect(app.location()).toBe('/transactions?status=declined&created=last7d');
      });
      await waitFor(() => {
        const last = bff.requestsTo('GET', '/api/transactions').at(-1)!.query;
        expect([last.get('createdFrom'), last.get('createdTo'), last.get('created')]).toEqual([
          lastWeek.createdFrom,
          lastWeek.createdTo,
          null,
        ]);
      });
      expect(screen.getByLabelText('Created (your time)')).toHaveValue('last7d');
      const menu = await openViews(app);
      await app.user.click(within(menu).getByRole('menuitem', { name: 'Save current view…' }));
      const dialog = await screen.findByRole('dialog', { name: 'Save current view' });
      expect(
        within(dialog).getByText('Status Declined · Created last 7 days · newest first'),
      ).toBeInTheDocument();
      await app.user.type(within(dialog).getByLabelText(/Name/), 'Declined this week');
      await app.user.click(within(dialog).getByRole('button', { name: 'Save view' }));
      await screen.findByText('Saved the view “Declined this week” for Support.');
      expect(bff.requestsTo('POST', '/api/views')[0]!.body).toMatchObject({
        query: 'status=declined&created=last7d',
      });
      // Typing a date makes the window fixed again, and applied, the URL holds the dates.
      await app.user.clear(screen.getByLabelText('Created from (your time)'));
      await app.user.type(screen.getByLabelText('Created from (your time)'), '2026-11-01T00:00');
      await app.user.clear(screen.getByLabelText('Created before (your time)'));
      await app.user.type(screen.getByLabelText('Created before (your time)'), '2026-11-18T00:00');
      expect(screen.getByLabelText('Created (your time)')).toHaveValue('');
      await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
      await waitFor(() => {
        expect(app.location()).toMatch(/createdTo=/);
      });
      expect(app.location()).not.toMatch(/created=last7d/);
      // Clear leaves no window behind either.
      await app.user.selectOptions(screen.getByLabelText('Created (your time)'), 'last7d');
      await app.user.click(screen.getByRole('button', { name: 'Apply filters' }));
      await waitFor(() => {
        expect(app.location()).toBe('/transactions?status=declined&created=last7d');
      });
      await app.user.click(screen.getByRole('button', { name: 'Clear' }));
      await waitFor(() => {
        expect(app.location()).toBe('/transactions');
      });
    });

    it('when a view with a window is applied, then its dates are those of the day it is applied; an old view with fixed dates keeps them', async () => {
      const bff = bffAs(['support'], {
        views: [
          makeView(1, { name: 'This week', query: 'created=last7d' }),
          makeView(2, {
            name: 'October',
            query: 'createdFrom=2026-10-01T00:00:00.000Z&createdTo=2026-11-01T00:00:00.000Z',
          }),
        ],
      });
      const app = renderApp('/transactions', bff);
      let menu = await openViews(app);
      await app.user.click(await within(menu).findByRole('menuitem', { name: /This week/ }));
      await waitFor(() => {
        const last = bff.requestsTo('GET', '/api/transactions').at(-1)!.query;
        expect([last.get('createdFrom'), last.get('createdTo')]).toEqual([
          lastWeek.createdFrom,
          lastWeek.createdTo,
        ]);
      });
      expect(app.location()).toBe('/transactions?created=last7d');
      expect(screen.getByLabelText('Created (your time)')).toHaveValue('last7d');
      menu = await openViews(app);
      expect(within(menu).getByRole('menuitem', { name: /This week/ })).toHaveClass('Mui-selected');
      await app.user.click(within(menu).getByRole('menuitem', { name: /October/ }));
      await waitFor(() => {
        const last = bff.requestsTo('GET', '/api/transactions').at(-1)!.query;
        expect([last.get('createdFrom'), last.get('createdTo')]).toEqual([
          '2026-10-01T00:00:00.000Z',
          '2026-11-01T00:00:00.000Z',
        ]);
      });
      expect(screen.getByLabelText('Created (your time)')).toHaveValue('');
    });
  });
});
