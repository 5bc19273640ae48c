import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ROLE_LABELS } from '@paydesk/shared/api';
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

export default function AccountRoute() {
  const { user, absoluteExpiresAt } = useSession();
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
            <Typography color="text.secondary">
              Last sign-in: {user.lastLoginAt ? <DateTime value={user.lastLoginAt} /> : 'never'}
            </Typography>
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
