import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

async function usersTable() {
  return screen.findByRole('table', { name: 'Users' });
}

function rowOf(table: HTMLElement, email: string): HTMLElement {
  const row = within(table)
    .getAllByRole('row')
    .find((r) => r.textContent.includes(email));
  if (!row) throw new Error(`no row for ${email}`);
  return row;
}

describe('users screen', () => {
  it('when the list is loading, then a loading state is shown', async () => {
    renderApp(
      '/users',
      new FakeBff().on('GET /api/users', () => 'hang'),
    );
    expect(await screen.findByText('Loading users…')).toBeInTheDocument();
  });

  it('when there are no users, then an empty state says how to add one', async () => {
    renderApp(
      '/users',
      new FakeBff().on('GET /api/users', () => ({ status: 200, body: { items: [] } })),
    );
    expect(await screen.findByText('No users yet')).toBeInTheDocument();
  });

  it('when the list fails, then an error with retry is shown and retry loads it', async () => {
    let fail = true;
    const bff = new FakeBff();
    const real = bff.fetch;
    bff.on('GET /api/users', () =>
      fail
        ? {
            status: 503,
            body: {
              error: { code: 'SERVICE_UNAVAILABLE', message: 'db down', requestId: 'req-7' },
            },
          }
        : 'hang',
    );
    const app = renderApp('/users', bff);
    expect(await screen.findByText('Could not load the users')).toBeInTheDocument();
    expect(screen.getByText(/request req-7/)).toBeInTheDocument();
    fail = false;
    await app.user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Loading users…')).toBeInTheDocument();
    expect(real).toBe(bff.fetch);
  });

  it('when the user is not an admin, then the screen is forbidden and the list is never requested', async () => {
    const bff = new FakeBff({ signedInAs: 'sam@example.com' });
    renderApp('/users', bff);
    expect(await screen.findByText('Not available to your roles')).toBeInTheDocument();
    expect(bff.requestsTo('GET', '/api/users')).toHaveLength(0);
  });

  it('when the server refuses the list with 403, then the forbidden state is shown', async () => {
    renderApp(
      '/users',
      new FakeBff().on('GET /api/users', () => ({
        status: 403,
        body: { error: { code: 'FORBIDDEN', message: 'no', requestId: 'r' } },
      })),
    );
    expect(await screen.findByText('Not available to your roles')).toBeInTheDocument();
  });

  it('when the list loads, then each user shows roles, status and two-step state', async () => {
    renderApp('/users', new FakeBff());
    const table = await usersTable();
    const sam = rowOf(table, 'sam@example.com');
    expect(within(sam).getByText('Support')).toBeInTheDocument();
    expect(within(sam).getByText('Active')).toBeInTheDocument();
    expect(within(sam).getByText('On')).toBeInTheDocument();
    const fay = rowOf(table, 'fin@example.com');
    expect(within(fay).getByText('Disabled')).toBeInTheDocument();
    expect(within(fay).getByText('Never')).toBeInTheDocument();
    expect(within(fay).getByRole('button', { name: 'Enable fin@example.com' })).toBeInTheDocument();
  });

  it('when a user is created, then the shared schema is sent with the CSRF header and the list refreshes', async () => {
    const app = renderApp('/users', new FakeBff());
    await usersTable();
    await app.user.click(screen.getByRole('button', { name: 'Create user' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create user' });
    await app.user.type(within(dialog).getByLabelText(/E-mail/), ' New.Person@Example.com ');
    await app.user.type(within(dialog).getByLabelText(/Name/), 'New Person');
    await app.user.type(
      within(dialog).getByLabelText(/Initial password/),
      'a long enough password',
    );
    await app.user.click(within(dialog).getByLabelText(/Finance/));
    await app.user.click(within(dialog).getByLabelText(/Support/));
    await app.user.click(within(dialog).getByRole('button', { name: 'Create user' }));
    expect(
      await screen.findByText(
        'New Person can now sign in as new.person@example.com, and must then choose their own password.',
      ),
    ).toBeInTheDocument();
    const [create] = app.bff.requestsTo('POST', '/api/users');
    expect(create!.headers.get('X-Requested-With')).toBe('paydesk');
    expect(create!.body).toEqual({
      email: 'new.person@example.com',
      name: 'New Person',
      password: 'a long enough password',
      roles: ['support', 'finance'],
    });
    await waitFor(() => {
      expect(
        rowOf(screen.getByRole('table', { name: 'Users' }), 'new.person@example.com'),
      ).toBeInTheDocument();
    });
    expect(app.bff.requestsTo('GET', '/api/users').length).toBeGreaterThanOrEqual(2);
  });

  it('when the form breaks the shared rules, then the fields say so and nothing is sent', async () => {
    const app = renderApp('/users', new FakeBff());
    await usersTable();
    await app.user.click(screen.getByRole('button', { name: 'Create user' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create user' });
    await app.user.type(within(dialog).getByLabelText(/Initial password/), 'short');
    await app.user.click(within(dialog).getByRole('button', { name: 'Create user' }));
    expect(await within(dialog).findByText('At least 12 characters.')).toBeInTheDocument();
    expect(within(dialog).getByText('Enter a valid e-mail address.')).toBeInTheDocument();
    expect(within(dialog).getByText('Choose at least one role.')).toBeInTheDocument();
    expect(app.bff.requestsTo('POST', '/api/users')).toHaveLength(0);
  });

  it('when the server rejects the e-mail or a field, then the error is shown next to that field', async () => {
    const bff = new FakeBff().on('POST /api/users', (request) =>
      (request.body as { name: string }).name === 'Taken'
        ? {
            status: 409,
            body: { error: { code: 'EMAIL_TAKEN', message: 'taken', requestId: 'r1' } },
          }
        : {
            status: 400,
            body: {
              error: {
                code: 'VALIDATION_FAILED',
                message: 'invalid',
                requestId: 'r2',
                details: {
                  fields: [{ path: 'name', rule: 'reserved', message: 'This name is reserved.' }],
                },
              },
            },
          },
    );
    const app = renderApp('/users', bff);
    await usersTable();
    await app.user.click(screen.getByRole('button', { name: 'Create user' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create user' });
    await app.user.type(within(dialog).getByLabelText(/E-mail/), 'sam@example.com');
    await app.user.type(within(dialog).getByLabelText(/Name/), 'Taken');
    await app.user.type(
      within(dialog).getByLabelText(/Initial password/),
      'a long enough password',
    );
    await app.user.click(within(dialog).getByLabelText(/Auditor/));
    await app.user.click(within(dialog).getByRole('button', { name: 'Create user' }));
    const email = within(dialog).getByLabelText(/E-mail/);
    await waitFor(() => {
      expect(email).toHaveAccessibleDescription(
        'Another account already uses this e-mail address.',
      );
    });
    await app.user.clear(within(dialog).getByLabelText(/Name/));
    await app.user.type(within(dialog).getByLabelText(/Name/), 'Root');
    await app.user.click(within(dialog).getByRole('button', { name: 'Create user' }));
    await waitFor(() => {
      expect(within(dialog).getByLabelText(/Name/)).toHaveAccessibleDescription(
        'This name is reserved.',
      );
    });
  });

  it('when roles are edited, then a PATCH with name and roles is sent and the row shows the new roles', async () => {
    const app = renderApp('/users', new FakeBff());
    const table = await usersTable();
    await app.user.click(
      within(rowOf(table, 'sam@example.com')).getByRole('button', { name: 'Edit sam@example.com' }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Edit sam@example.com' });
    await app.user.click(within(dialog).getByLabelText(/Operations/));
    await app.user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved Sam Support.')).toBeInTheDocument();
    expect(app.bff.requestsTo('PATCH', '/api/users/u-sam')[0]!.body).toEqual({
      name: 'Sam Support',
      roles: ['support', 'ops'],
    });
    await waitFor(() => {
      expect(
        within(rowOf(screen.getByRole('table', { name: 'Users' }), 'sam@example.com')).getByText(
          'Operations',
        ),
      ).toBeInTheDocument();
    });
  });

  it('when disabling, then it asks first, Cancel sends nothing, and Disable sends disabled: true', async () => {
    const app = renderApp('/users', new FakeBff());
    const table = await usersTable();
    await app.user.click(
      within(rowOf(table, 'sam@example.com')).getByRole('button', {
        name: 'Disable sam@example.com',
      }),
    );
    let confirm = await screen.findByRole('dialog', { name: 'Disable this user?' });
    await app.user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(app.bff.requestsTo('PATCH', '/api/users/u-sam')).toHaveLength(0);
    await app.user.click(
      within(rowOf(table, 'sam@example.com')).getByRole('button', {
        name: 'Disable sam@example.com',
      }),
    );
    confirm = await screen.findByRole('dialog', { name: 'Disable this user?' });
    await app.user.click(within(confirm).getByRole('button', { name: 'Disable' }));
    expect(
      await screen.findByText('sam@example.com is disabled and signed out.'),
    ).toBeInTheDocument();
    expect(app.bff.requestsTo('PATCH', '/api/users/u-sam')[0]!.body).toEqual({ disabled: true });
    await waitFor(() => {
      expect(
        within(rowOf(screen.getByRole('table', { name: 'Users' }), 'sam@example.com')).getByText(
          'Disabled',
        ),
      ).toBeInTheDocument();
    });
  });

  it('when enabling, then it is sent at once (not destructive)', async () => {
    const app = renderApp('/users', new FakeBff());
    const table = await usersTable();
    await app.user.click(
      within(rowOf(table, 'fin@example.com')).getByRole('button', {
        name: 'Enable fin@example.com',
      }),
    );
    expect(await screen.findByText('fin@example.com can sign in again.')).toBeInTheDocument();
    expect(app.bff.requestsTo('PATCH', '/api/users/u-fin')[0]!.body).toEqual({ disabled: false });
  });

  it('when the last admin would lose the admin role, then the failure snackbar explains why', async () => {
    const bff = new FakeBff();
    const app = renderApp('/users', bff);
    const table = await usersTable();
    await app.user.click(
      within(rowOf(table, 'admin@example.com')).getByRole('button', {
        name: 'Edit admin@example.com',
      }),
    );
    const dialog = await screen.findByRole('dialog', { name: 'Edit admin@example.com' });
    await app.user.click(within(dialog).getByLabelText(/Administrator/));
    await app.user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(
      await screen.findByText(/At least one enabled administrator must remain/),
    ).toBeInTheDocument();
    expect(bff.users[0]!.roles).toEqual(['admin', 'auditor']);
  });

  it('when looking at one’s own row, then there is no Disable button', async () => {
    renderApp('/users', new FakeBff());
    const table = await usersTable();
    expect(
      within(rowOf(table, 'admin@example.com')).queryByRole('button', { name: /Disable/ }),
    ).not.toBeInTheDocument();
    expect(
      within(rowOf(table, 'admin@example.com')).getByRole('button', {
        name: 'Edit admin@example.com',
      }),
    ).toBeInTheDocument();
  });

  it('when resetting two-step sign-in, then it asks first and the row shows it off afterwards', async () => {
    const app = renderApp('/users', new FakeBff());
    const table = await usersTable();
    await app.user.click(
      within(rowOf(table, 'sam@example.com')).getByRole('button', {
        name: 'Reset two-step sign-in of sam@example.com',
      }),
    );
    const confirm = await screen.findByRole('dialog', { name: 'Reset two-step sign-in?' });
    await app.user.click(within(confirm).getByRole('button', { name: 'Reset' }));
    expect(
      await screen.findByText(/Two-step sign-in of sam@example.com was reset/),
    ).toBeInTheDocument();
    expect(app.bff.requestsTo('POST', '/api/users/u-sam/reset-totp')).toHaveLength(1);
    await waitFor(() => {
      expect(
        within(rowOf(screen.getByRole('table', { name: 'Users' }), 'sam@example.com')).getByText(
          'Off',
        ),
      ).toBeInTheDocument();
    });
  });
});
