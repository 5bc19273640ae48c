import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { FakeBff, makeUser } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

async function usersTable() {
  return screen.findByRole('table', { name: 'Users' });
}

function rowOf(table: HTMLElement, email: string, hidden = false): HTMLElement {
  const row = within(table)
    .getAllByRole('row', { hidden })
    .find((r) => r.textContent.includes(email));
  if (!row) throw new Error(`no row for ${email}`);
  return row;
}

async function openReset(app: ReturnType<typeof renderApp>, email: string) {
  const table = await usersTable();
  await app.user.click(
    within(rowOf(table, email)).getByRole('button', { name: `Reset password of ${email}` }),
  );
  return screen.findByRole('dialog', { name: 'Reset password' });
}

describe('users screen: reset password', () => {
  it('when the list loads, then it shows which accounts still have a temporary password, and offers a reset on every row but one’s own', async () => {
    const bff = new FakeBff({
      users: [
        makeUser({ email: 'admin@example.com', roles: ['admin'] }),
        makeUser({ email: 'new@example.com', roles: ['ops'], passwordChangeRequired: true }),
        makeUser({ email: 'old@example.com', roles: ['finance'] }),
      ],
    });
    renderApp('/users', bff);
    const table = await usersTable();
    expect(
      within(rowOf(table, 'new@example.com')).getByText('Temporary password'),
    ).toBeInTheDocument();
    expect(within(rowOf(table, 'old@example.com')).queryByText('Temporary password')).toBeNull();
    expect(within(rowOf(table, 'admin@example.com')).queryByText('Temporary password')).toBeNull();
    for (const email of ['new@example.com', 'old@example.com'])
      expect(
        within(rowOf(table, email)).getByRole('button', { name: `Reset password of ${email}` }),
      ).toBeInTheDocument();
    expect(
      within(rowOf(table, 'admin@example.com')).queryByRole('button', { name: /Reset password/ }),
    ).not.toBeInTheDocument();
  });

  it('when an admin resets a password, then the dialog asks for it (focused) and why, confirms in words, sends it once, and says the user must choose their own and was signed out; the row shows it temporary', async () => {
    const app = renderApp('/users', new FakeBff());
    const dialog = await openReset(app, 'sam@example.com');
    const field = within(dialog).getByLabelText(/New temporary password/);
    await waitFor(() => {
      expect(field).toHaveFocus();
    });
    expect(within(dialog).getByText(/Sam Support \(sam@example.com\)/)).toBeInTheDocument();
    await app.user.type(field, 'a temporary one 123');
    // Why is asked, as for a two-step reset: it goes into the audit log.
    await app.user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    const reason = within(dialog).getByLabelText(/^Reason/);
    expect(reason).toHaveAttribute('aria-invalid', 'true');
    expect(app.bff.requestsTo('POST', '/api/users/u-sam/reset-password')).toHaveLength(0);
    await app.user.type(reason, 'Forgot it, asked by phone');
    await app.user.click(within(dialog).getByRole('button', { name: 'Continue' }));

    const confirm = await screen.findByRole('dialog', {
      name: 'Reset the password of sam@example.com?',
    });
    expect(within(confirm).getByText(/signed out everywhere at once/)).toBeInTheDocument();
    // The safe choice has the focus; nothing is sent before the confirmation.
    await waitFor(() => {
      expect(within(confirm).getByRole('button', { name: 'Back' })).toHaveFocus();
    });
    expect(app.bff.requestsTo('POST', '/api/users/u-sam/reset-password')).toHaveLength(0);
    await app.user.click(within(confirm).getByRole('button', { name: 'Reset password' }));

    const done = await screen.findByRole('dialog', { name: 'Password reset' });
    expect(within(done).getByRole('status')).toHaveTextContent(
      /Their sessions were ended, and at their next sign-in they must choose their own password/,
    );
    const [sent, ...more] = app.bff.requestsTo('POST', '/api/users/u-sam/reset-password');
    expect(more).toHaveLength(0);
    expect(sent!.headers.get('X-Requested-With')).toBe('paydesk');
    expect(sent!.body).toEqual({
      password: 'a temporary one 123',
      reason: 'Forgot it, asked by phone',
    });
    expect(app.bff.passwords.get('sam@example.com')).toBe('a temporary one 123');
    // The list behind the dialog (hidden from assistive technology while it is open) refreshed.
    await waitFor(() => {
      expect(
        within(
          rowOf(
            screen.getByRole('table', { name: 'Users', hidden: true }),
            'sam@example.com',
            true,
          ),
        ).getByText('Temporary password'),
      ).toBeInTheDocument();
    });
    await app.user.click(within(done).getByRole('button', { name: 'Done' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
  });

  it('when the password breaks the shared rules, then the field says so and nothing is sent; Back from the confirmation returns to the form with the password kept', async () => {
    const app = renderApp('/users', new FakeBff());
    const dialog = await openReset(app, 'sam@example.com');
    const field = within(dialog).getByLabelText(/New temporary password/);
    await app.user.type(within(dialog).getByLabelText(/^Reason/), 'Forgot it');
    await app.user.type(field, 'short');
    await app.user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    await waitFor(() => {
      expect(field).toHaveAccessibleDescription('At least 12 characters.');
    });
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveFocus();
    await app.user.type(field, ' but longer now');
    await app.user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    const confirm = await screen.findByRole('dialog', {
      name: 'Reset the password of sam@example.com?',
    });
    await app.user.click(within(confirm).getByRole('button', { name: 'Back' }));
    const again = await screen.findByRole('dialog', { name: 'Reset password' });
    expect(within(again).getByLabelText(/New temporary password/)).toHaveValue(
      'short but longer now',
    );
    expect(app.bff.requestsTo('POST', '/api/users/u-sam/reset-password')).toHaveLength(0);
  });

  it('when the server refuses the password, then the form shows why beside the field; another refusal shows in the confirmation', async () => {
    let answer: 'field' | 'gone' = 'field';
    const bff = new FakeBff().on('POST /api/users/:id/reset-password', () =>
      answer === 'field'
        ? {
            status: 400,
            body: {
              error: {
                code: 'VALIDATION_FAILED',
                message: 'password: too short',
                requestId: 'req-v',
                details: {
                  fields: [{ path: 'password', rule: 'too_small', message: 'Too short here.' }],
                },
              },
            },
          }
        : {
            status: 404,
            body: { error: { code: 'NOT_FOUND', message: 'no such user', requestId: 'req-404' } },
          },
    );
    const app = renderApp('/users', bff);
    const dialog = await openReset(app, 'sam@example.com');
    await app.user.type(
      within(dialog).getByLabelText(/New temporary password/),
      'a temporary one 123',
    );
    await app.user.type(within(dialog).getByLabelText(/^Reason/), 'Forgot it');
    await app.user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    let confirm = await screen.findByRole('dialog', {
      name: 'Reset the password of sam@example.com?',
    });
    await app.user.click(within(confirm).getByRole('button', { name: 'Reset password' }));
    const back = await screen.findByRole('dialog', { name: 'Reset password' });
    await waitFor(() => {
      expect(within(back).getByLabelText(/New temporary password/)).toHaveAccessibleDescription(
        'Too short here.',
      );
    });

    answer = 'gone';
    await app.user.click(within(back).getByRole('button', { name: 'Continue' }));
    confirm = await screen.findByRole('dialog', {
      name: 'Reset the password of sam@example.com?',
    });
    await app.user.click(within(confirm).getByRole('button', { name: 'Reset password' }));
    expect(await within(confirm).findByRole('alert')).toHaveTextContent('no such user');
  });

  it('when the dialog is cancelled, then nothing is sent', async () => {
    const app = renderApp('/users', new FakeBff());
    const dialog = await openReset(app, 'fin@example.com');
    await app.user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => {
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    });
    expect(app.bff.requests.filter((r) => r.path.endsWith('/reset-password'))).toHaveLength(0);
  });
});
