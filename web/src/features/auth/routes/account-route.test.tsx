import { render, screen, waitFor, within } from '@testing-library/react';
import { QRCodeSVG } from 'qrcode.react';
import { describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, FakeBff, VALID_TOTP } from '../../../test/fake-bff';
import { renderApp } from '../../../test/render-app';

/** Types the current password into the two-step form and starts enrolment. */
async function startEnrolment(app: ReturnType<typeof renderApp>): Promise<void> {
  const form = await screen.findByRole('form', { name: 'Set up two-step sign-in' });
  await app.user.type(within(form).getByLabelText(/Current password/), DEMO_PASSWORD);
  await app.user.click(within(form).getByRole('button', { name: 'Set up two-step sign-in' }));
}

describe('My account', () => {
  it('when the session is still being checked, then a loading state is shown', async () => {
    renderApp(
      '/account',
      new FakeBff().on('GET /api/session', () => 'hang'),
    );
    expect(await screen.findByText('Checking your session…')).toBeInTheDocument();
  });

  it('when the session check fails, then an error state with retry is shown', async () => {
    renderApp(
      '/account',
      new FakeBff().on('GET /api/session', () => ({
        status: 503,
        body: { error: { code: 'SERVICE_UNAVAILABLE', message: 'down', requestId: 'r-acc' } },
      })),
    );
    expect(await screen.findByText('Could not load your session')).toBeInTheDocument();
  });

  it('when opened, then it shows the profile with roles', async () => {
    renderApp('/account', new FakeBff());
    expect(await screen.findByRole('heading', { name: 'My account' })).toBeInTheDocument();
    const profile = screen.getByRole('region', { name: 'Profile' });
    expect(within(profile).getByText('Administrator')).toBeInTheDocument();
    expect(within(profile).getByText('Auditor')).toBeInTheDocument();
  });

  it('when the user signed in before, then the previous sign-in shows when and from where, not this session’s own', async () => {
    const bff = new FakeBff();
    bff.previousSession = {
      startedAt: '2026-11-20T09:15:00.000Z',
      ip: '203.0.113.7',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/156.0',
    };
    renderApp('/account', bff);
    const profile = await screen.findByRole('region', { name: 'Profile' });
    expect(within(profile).getByText(/Previous sign-in/)).toHaveTextContent(
      /^Previous sign-in: .*2026.* from 203\.0\.113\.7$/,
    );
    expect(within(profile).getByText(/Browser: Mozilla\/5\.0/)).toBeInTheDocument();
    expect(within(profile).queryByText(/Last sign-in/)).toBeNull();
  });

  it('when this is the first sign-in, then the profile says there was none before', async () => {
    renderApp('/account', new FakeBff());
    const profile = await screen.findByRole('region', { name: 'Profile' });
    expect(within(profile).getByText('Before this one: no earlier sign-in.')).toBeInTheDocument();
  });

  it('when the current password is wrong, then that field says so', async () => {
    const app = renderApp('/account', new FakeBff());
    const form = await screen.findByRole('form', { name: 'Change password' });
    await app.user.type(within(form).getByLabelText(/Current password/), 'not it');
    await app.user.type(within(form).getByLabelText(/^New password/), 'a brand new passphrase');
    await app.user.type(
      within(form).getByLabelText(/Repeat new password/),
      'a brand new passphrase',
    );
    await app.user.click(within(form).getByRole('button', { name: 'Change password' }));
    await waitFor(() => {
      expect(within(form).getByLabelText(/Current password/)).toHaveAccessibleDescription(
        'This is not your current password.',
      );
    });
  });

  it('when the two new passwords differ, then nothing is sent', async () => {
    const app = renderApp('/account', new FakeBff());
    const form = await screen.findByRole('form', { name: 'Change password' });
    await app.user.type(within(form).getByLabelText(/Current password/), DEMO_PASSWORD);
    await app.user.type(within(form).getByLabelText(/^New password/), 'a brand new passphrase');
    await app.user.type(
      within(form).getByLabelText(/Repeat new password/),
      'a brand new passphrasE',
    );
    await app.user.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(await within(form).findByText('The two new passwords differ.')).toBeInTheDocument();
    expect(app.bff.requestsTo('POST', '/api/session/password')).toHaveLength(0);
  });

  it('when the password is changed, then only current and new are sent and a snackbar confirms', async () => {
    const bff = new FakeBff();
    const app = renderApp('/account', bff);
    const form = await screen.findByRole('form', { name: 'Change password' });
    await app.user.type(within(form).getByLabelText(/Current password/), DEMO_PASSWORD);
    await app.user.type(within(form).getByLabelText(/^New password/), 'a brand new passphrase');
    await app.user.type(
      within(form).getByLabelText(/Repeat new password/),
      'a brand new passphrase',
    );
    await app.user.click(within(form).getByRole('button', { name: 'Change password' }));
    expect(
      await screen.findByText('Password changed. Your other sessions were signed out.'),
    ).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/session/password')[0]!.body).toEqual({
      currentPassword: DEMO_PASSWORD,
      newPassword: 'a brand new passphrase',
    });
    expect(bff.passwords.get('admin@example.com')).toBe('a brand new passphrase');
  });

  it('when two-step enrolment starts, then it asks the current password first: none or a wrong one starts nothing and the field says so; the right one is sent and shows the secret', async () => {
    const bff = new FakeBff();
    const app = renderApp('/account', bff);
    const form = await screen.findByRole('form', { name: 'Set up two-step sign-in' });
    const password = within(form).getByLabelText(/Current password/);
    await app.user.click(within(form).getByRole('button', { name: 'Set up two-step sign-in' }));
    await waitFor(() => {
      expect(password).toHaveAccessibleDescription('Enter your current password.');
    });
    expect(bff.requestsTo('POST', '/api/session/totp')).toHaveLength(0);
    await app.user.type(password, 'not it');
    await app.user.click(within(form).getByRole('button', { name: 'Set up two-step sign-in' }));
    await waitFor(() => {
      expect(password).toHaveAccessibleDescription('This is not your current password.');
    });
    expect(screen.queryByLabelText('Secret')).not.toBeInTheDocument();
    await app.user.clear(password);
    await app.user.type(password, DEMO_PASSWORD);
    await app.user.click(within(form).getByRole('button', { name: 'Set up two-step sign-in' }));
    expect(await screen.findByDisplayValue('JBSWY3DPEHPK3PXP')).toBeInTheDocument();
    expect(bff.requestsTo('POST', '/api/session/totp').map((r) => r.body)).toEqual([
      { currentPassword: 'not it' },
      { currentPassword: DEMO_PASSWORD },
    ]);
  });

  it('when TOTP is enrolled, then secret and URI are shown, a wrong code is refused, and recovery codes show once', async () => {
    const bff = new FakeBff();
    const app = renderApp('/account', bff);
    await startEnrolment(app);
    expect(await screen.findByDisplayValue('JBSWY3DPEHPK3PXP')).toBeInTheDocument();
    expect(screen.getByLabelText('Setup link (for apps that cannot scan the code)')).toHaveValue(
      'otpauth://totp/Paydesk:admin@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Paydesk',
    );
    const code = screen.getByLabelText(/Code from the app/);
    // Too short: the field says the rule as a sentence, and nothing is sent.
    await app.user.type(code, '12');
    await app.user.click(screen.getByRole('button', { name: 'Turn on two-step sign-in' }));
    await waitFor(() => {
      expect(code).toHaveAccessibleDescription(
        'Enter the 6-digit code from your authenticator app.',
      );
    });
    expect(bff.requestsTo('POST', '/api/session/totp/confirm')).toHaveLength(0);
    await app.user.clear(code);
    await app.user.type(code, '999999');
    await app.user.click(screen.getByRole('button', { name: 'Turn on two-step sign-in' }));
    await waitFor(() => {
      expect(code).toHaveAccessibleDescription(
        'That code is not valid. Enter the current code from your app.',
      );
    });
    await app.user.clear(code);
    // Typed as the app shows it (`123 456`): the space is taken out, not refused.
    await app.user.type(code, `${VALID_TOTP.slice(0, 3)} ${VALID_TOTP.slice(3)}`);
    await app.user.click(screen.getByRole('button', { name: 'Turn on two-step sign-in' }));
    expect(await screen.findByLabelText('Recovery codes')).toHaveValue(
      'aaaa-bbbb\ncccc-dddd\neeee-ffff',
    );
    await app.user.click(screen.getByRole('button', { name: 'I have saved them' }));
    expect(await screen.findByText(/Two-step sign-in is on\. If you lose/)).toBeInTheDocument();
    expect(screen.queryByLabelText('Recovery codes')).not.toBeInTheDocument();
    expect(bff.users[0]!.totpEnabled).toBe(true);
  });
  it('when TOTP enrolment starts, then a QR code of the setup link (the otpauth URI) is drawn in the page to scan, beside the secret for typing in', async () => {
    const bff = new FakeBff();
    const app = renderApp('/account', bff);
    await startEnrolment(app);
    const qr = await screen.findByRole('img', { name: /^QR code of the setup link/ });
    expect(qr.tagName.toLowerCase()).toBe('svg');
    const uri = 'otpauth://totp/Paydesk:admin@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Paydesk';
    // the same modules as a QR code of exactly the URI (not of the secret alone)
    const expected = render(<QRCodeSVG value={uri} size={200} marginSize={4} />).container;
    const modules = (svg: Element) => svg.querySelectorAll('path')[1]?.getAttribute('d');
    expect(modules(qr)).toBeTruthy();
    expect(modules(qr)).toBe(modules(expected.querySelector('svg')!));
    // manual entry stays possible
    expect(screen.getByLabelText('Secret')).toHaveValue('JBSWY3DPEHPK3PXP');
    // drawn here: no image was fetched from anywhere
    expect(bff.requests.every((r) => r.path.startsWith('/api/'))).toBe(true);
  });
});
