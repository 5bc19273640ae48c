import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, FakeBff, VALID_TOTP } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

const signedOut = () => new FakeBff({ signedInAs: null });

describe('sign-in', () => {
  it('when the session check is still running, then a loading state is shown instead of the form', async () => {
    renderApp(
      '/sign-in',
      signedOut().on('GET /api/session', () => 'hang'),
    );
    expect(await screen.findByText('Checking your session…')).toBeInTheDocument();
    expect(screen.queryByLabelText(/E-mail/)).not.toBeInTheDocument();
  });

  it('when the session check fails with a server error, then an error with a retry is shown', async () => {
    renderApp(
      '/sign-in',
      signedOut().on('GET /api/session', () => ({
        status: 500,
        body: { error: { code: 'INTERNAL', message: 'boom', requestId: 'req-9' } },
      })),
    );
    expect(await screen.findByText(/request req-9/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });

  it('when an admin-auditor signs in, then the session request is sent with the CSRF header and they land on Home', async () => {
    const app = renderApp('/sign-in', signedOut());
    await app.user.type(await screen.findByLabelText(/E-mail/), 'Admin@Example.com');
    await app.user.type(screen.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => {
      expect(app.location()).toBe('/');
    });
    const [login] = app.bff.requestsTo('POST', '/api/session');
    expect(login!.headers.get('X-Requested-With')).toBe('paydesk');
    expect(login!.credentials).toBe('same-origin');
    expect(login!.body).toEqual({ email: 'admin@example.com', password: DEMO_PASSWORD });
    expect(await screen.findByRole('heading', { level: 1, name: 'Home' })).toBeInTheDocument();
  });

  it('when the password is wrong, then the form says so and stays on sign-in', async () => {
    const app = renderApp('/sign-in', signedOut());
    await app.user.type(await screen.findByLabelText(/E-mail/), 'admin@example.com');
    await app.user.type(screen.getByLabelText(/Password/), 'wrong password!');
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The e-mail address or the password is not right.',
    );
    expect(app.location()).toBe('/sign-in');
  });

  it('when the e-mail is not an address, then nothing is sent and the field says why', async () => {
    const app = renderApp('/sign-in', signedOut());
    await app.user.type(await screen.findByLabelText(/E-mail/), 'not-an-address');
    await app.user.type(screen.getByLabelText(/Password/), 'x');
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByText('Enter a valid e-mail address.')).toBeInTheDocument();
    expect(app.bff.requestsTo('POST', '/api/session')).toHaveLength(0);
  });

  it('when the code step is switched to a recovery code, then the field takes letters (a text keyboard, not a number pad) and says what to enter; and back', async () => {
    const app = renderApp('/sign-in', signedOut());
    await app.user.type(await screen.findByLabelText(/E-mail/), 'sam@example.com');
    await app.user.type(screen.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByLabelText(/Authentication code/)).toHaveAttribute(
      'inputmode',
      'numeric',
    );
    await app.user.click(screen.getByRole('button', { name: 'Use a recovery code' }));
    const recovery = screen.getByLabelText(/Recovery code/);
    expect(recovery).toHaveAttribute('inputmode', 'text');
    expect(recovery).toHaveAccessibleDescription(
      'One of the recovery codes you saved (XXXXX-XXXXX); each works once.',
    );
    await waitFor(() => {
      expect(recovery).toHaveFocus();
    });
    await app.user.click(screen.getByRole('button', { name: 'Use the code from your app' }));
    expect(screen.getByLabelText(/Authentication code/)).toHaveAttribute('inputmode', 'numeric');
  });

  it('when the account has TOTP, then a code step follows and a wrong then right code signs in', async () => {
    const app = renderApp('/sign-in', signedOut());
    await app.user.type(await screen.findByLabelText(/E-mail/), 'sam@example.com');
    await app.user.type(screen.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    const code = await screen.findByLabelText(/Authentication code/);
    await waitFor(() => {
      expect(code).toHaveFocus();
    });
    await app.user.type(code, '000000');
    await app.user.click(screen.getByRole('button', { name: 'Verify and sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('That code is not valid');
    await app.user.clear(code);
    await app.user.type(code, VALID_TOTP);
    await app.user.click(screen.getByRole('button', { name: 'Verify and sign in' }));
    // Everyone's first screen is Home.
    await waitFor(() => {
      expect(app.location()).toBe('/');
    });
    const attempts = app.bff.requestsTo('POST', '/api/session').map((r) => r.body);
    expect(attempts).toEqual([
      { email: 'sam@example.com', password: DEMO_PASSWORD },
      { email: 'sam@example.com', password: DEMO_PASSWORD, totp: '000000' },
      { email: 'sam@example.com', password: DEMO_PASSWORD, totp: VALID_TOTP },
    ]);
  });

  it('when the code was already used (the BFF says already_used), then the form says to wait for the next code, not that it is wrong', async () => {
    const bff = signedOut().on('POST /api/session', (request) => {
      const body = request.body as { totp?: string };
      const fields =
        body.totp === undefined
          ? [{ path: 'totp', rule: 'required', message: 'a TOTP or recovery code is required' }]
          : [{ path: 'totp', rule: 'already_used', message: 'this code was already used' }];
      return {
        status: 401,
        body: {
          error: {
            code: body.totp === undefined ? 'TOTP_REQUIRED' : 'TOTP_INVALID',
            message: fields[0]!.message,
            details: { fields },
            requestId: 'r-1',
          },
        },
      };
    });
    const app = renderApp('/sign-in', bff);
    await app.user.type(await screen.findByLabelText(/E-mail/), 'sam@example.com');
    await app.user.type(screen.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    const code = await screen.findByLabelText(/Authentication code/);
    await app.user.type(code, VALID_TOTP);
    await app.user.click(screen.getByRole('button', { name: 'Verify and sign in' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      'That code was already used. Wait for the next code in your app (a new one every 30 seconds), or use a recovery code.',
    );
    expect(alert).not.toHaveTextContent('not valid');
  });

  it('when the code is typed as authenticator apps show it, with a space, then it is sent without the space and signs in', async () => {
    const app = renderApp('/sign-in', signedOut());
    await app.user.type(await screen.findByLabelText(/E-mail/), 'sam@example.com');
    await app.user.type(screen.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    const code = await screen.findByLabelText(/Authentication code/);
    await app.user.type(code, `${VALID_TOTP.slice(0, 3)} ${VALID_TOTP.slice(3)}`);
    await app.user.click(screen.getByRole('button', { name: 'Verify and sign in' }));
    await waitFor(() => {
      expect(app.location()).toBe('/');
    });
    expect(app.bff.requestsTo('POST', '/api/session').map((r) => r.body)).toEqual([
      { email: 'sam@example.com', password: DEMO_PASSWORD },
      { email: 'sam@example.com', password: DEMO_PASSWORD, totp: VALID_TOTP },
    ]);
  });

  it('when the account is disabled, then the form says so', async () => {
    const app = renderApp('/sign-in', signedOut());
    await app.user.type(await screen.findByLabelText(/E-mail/), 'fin@example.com');
    await app.user.type(screen.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('This account is disabled');
  });

  it('when someone signed out (or was signed out as disabled) tries to sign in, then only what that attempt met shows: the notice of why they came goes (QA)', async () => {
    for (const reason of ['disabled', 'signed-out'] as const) {
      const page = renderApp(`/sign-in?reason=${reason}`, signedOut());
      expect(
        await screen.findByText(
          reason === 'disabled' ? /Your account has been disabled/ : 'You signed out.',
        ),
      ).toBeInTheDocument();
      await page.user.type(await screen.findByLabelText(/E-mail/), 'fin@example.com');
      await page.user.type(screen.getByLabelText(/Password/), DEMO_PASSWORD);
      await page.user.click(screen.getByRole('button', { name: 'Sign in' }));
      expect(await screen.findByRole('alert')).toHaveTextContent('This account is disabled');
      expect(screen.queryByText(/Your account has been disabled/)).toBeNull();
      expect(screen.queryByText('You signed out.')).toBeNull();
      page.unmount();
    }
  });

  it('when sign-in came from an expired session, then it says so and returns to the page after', async () => {
    const app = renderApp('/sign-in?next=%2Fusers%3Fx%3D1&reason=expired', signedOut());
    expect(await screen.findByRole('status')).toHaveTextContent(
      'Your session ended; sign in again to carry on.',
    );
    await app.user.type(await screen.findByLabelText(/E-mail/), 'admin@example.com');
    await app.user.type(screen.getByLabelText(/Password/), DEMO_PASSWORD);
    await app.user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => {
      expect(app.location()).toBe('/users?x=1');
    });
  });

  it('when a page opens after its session expired, then sign-in says the session ended and returns there after', async () => {
    const app = renderApp(
      '/users',
      signedOut().on('GET /api/session', () => ({
        status: 401,
        body: { error: { code: 'SESSION_EXPIRED', message: 'expired', requestId: 'r' } },
      })),
    );
    await waitFor(() => {
      expect(app.location()).toBe('/sign-in?next=%2Fusers&reason=expired');
    });
    expect(await screen.findByRole('status')).toHaveTextContent(
      'Your session ended; sign in again to carry on.',
    );
  });

  it('when a browser that never signed in opens a page, then sign-in says nothing about a session', async () => {
    const app = renderApp('/users', signedOut());
    await waitFor(() => {
      expect(app.location()).toBe('/sign-in?next=%2Fusers');
    });
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('when next points to another site, then it is ignored', async () => {
    const app = renderApp('/sign-in?next=%2F%2Fevil.example%2F', new FakeBff());
    await waitFor(() => {
      expect(app.location()).toBe('/');
    });
  });
});
