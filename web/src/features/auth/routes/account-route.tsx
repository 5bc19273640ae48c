import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ROLE_LABELS, type SessionOrigin } from '@paydesk/shared/api';
import type { ReactNode } from 'react';
import { DateTime } from '../../../components/date-time';
import { PageHeader } from '../../../components/page-header';
import { ChangePasswordForm } from '../components/change-password-form';
import { useSession } from '../components/session-context';
import { TotpEnrolment } from '../components/totp-enrolment';

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper variant="outlined" component="section" aria-label={title} sx={{ p: 3 }}>
      <Typography variant="h2" sx={{ mb: 2 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

/**
 * The session before this one: a sign-in the user does not recognise is the first sign that
 * someone else has their password. (This session's own sign-in is not worth showing.)
 */
function PreviousSession({ origin }: { origin: SessionOrigin | null }) {
  if (origin === null)
    return <Typography color="text.secondary">Before this one: no earlier sign-in.</Typography>;
  return (
    <Stack spacing={0.25}>
      <Typography color="text.secondary">
        Previous sign-in: <DateTime value={origin.startedAt} />
        {origin.ip === null ? '' : ` from ${origin.ip}`}
      </Typography>
      {origin.userAgent !== null && (
        <Typography
          variant="body2"
          color="text.secondary"
          title={origin.userAgent}
          sx={{ overflowWrap: 'anywhere' }}
        >
          Browser:{' '}
          {origin.userAgent.length > 120 ? `${origin.userAgent.slice(0, 120)}…` : origin.userAgent}
        </Typography>
      )}
      <Typography variant="body2" color="text.secondary">
        Not you? Change your password below: that ends every other session.
      </Typography>
    </Stack>
  );
}

export default function AccountRoute() {
  const { user, absoluteExpiresAt, previousSession } = useSession();
  return (
    <>
      <PageHeader title="My account">
        {user.name} · {user.email}
      </PageHeader>
      <Stack spacing={3} sx={{ maxWidth: 760 }}>
        <Section title="Profile">
          <Stack spacing={1}>
            <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', alignItems: 'center' }}>
              <Typography component="span" color="text.secondary">
                Roles:
              </Typography>
              {user.roles.map((role) => (
                <Chip key={role} label={ROLE_LABELS[role]} size="small" />
              ))}
            </Stack>
            <PreviousSession origin={previousSession} />
            <Typography color="text.secondary">
              This session ends at the latest at <DateTime value={absoluteExpiresAt} />.
            </Typography>
          </Stack>
        </Section>
        <Section title="Password">
          <ChangePasswordForm />
        </Section>
        <Section title="Two-step sign-in">
          <TotpEnrolment />
        </Section>
      </Stack>
    </>
  );
}
