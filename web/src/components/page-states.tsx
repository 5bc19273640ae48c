import LockOutlined from '@mui/icons-material/LockOutlined';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { useContext, type ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { SessionContext } from '../features/auth/components/session-context';
import { describeError, isForbidden } from '../lib/api-client';
import { PageHeader } from './page-header';

export function LoadingState({ label = 'Loading…' }: { label?: string }) {
  return (
    <Box
      role="status"
      aria-live="polite"
      sx={{ display: 'flex', alignItems: 'center', gap: 2, p: 4 }}
    >
      <CircularProgress size={24} aria-hidden />
      <Typography color="text.secondary">{label}</Typography>
    </Box>
  );
}

/**
 * What a user sees where their roles do not reach. As a whole screen (`asPage`) it is the page's
 * h1 and its document title, as any screen's header is; inside a screen it is a section of it.
 */
export function ForbiddenState({
  what = 'this screen',
  asPage = false,
}: {
  what?: string;
  asPage?: boolean;
}) {
  const title = 'Not available to your roles';
  // Outside a session (none signed in yet) there is no one to tell about roles they could give.
  const admin = useContext(SessionContext)?.user.roles.includes('admin') === true;
  const panel = (
    <Paper variant="outlined" sx={{ p: 4, textAlign: 'center' }}>
      <LockOutlined color="disabled" fontSize="large" aria-hidden />
      {asPage ? null : (
        <Typography variant="h2" component="h2" sx={{ mt: 1 }}>
          {title}
        </Typography>
      )}
      <Typography color="text.secondary" sx={{ mt: 1 }}>
        {admin ? (
          <>
            Your roles do not give access to {what}: it is another role’s screen. As an
            administrator you can give yourself that role in{' '}
            <Link component={RouterLink} to="/users">
              Users
            </Link>
            .
          </>
        ) : (
          <>Your roles do not give access to {what}. Ask an administrator if you need access.</>
        )}
      </Typography>
    </Paper>
  );
  if (!asPage) return panel;
  return (
    <>
      <PageHeader title={title} />
      {panel}
    </>
  );
}

/** Any failed query: forbidden gets its own state; everything else says what happened and offers a retry. */
export function ErrorState({
  error,
  onRetry,
  what,
  asPage = false,
}: {
  error: unknown;
  onRetry?: () => void;
  what?: string;
  /** the whole screen (a detail page with no header yet): a refusal is then its h1 */
  asPage?: boolean;
}) {
  if (isForbidden(error)) {
    return <ForbiddenState asPage={asPage} {...(what === undefined ? {} : { what })} />;
  }
  return (
    <Alert
      severity="error"
      action={
        onRetry ? (
          <Button color="inherit" size="small" onClick={onRetry}>
            Retry
          </Button>
        ) : undefined
      }
    >
      <AlertTitle>Could not load {what ?? 'this screen'}</AlertTitle>
      {describeError(error)}
    </Alert>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: 4, textAlign: 'center' }}>
      <Typography variant="h2" component="p">
        {title}
      </Typography>
      {children ? (
        <Typography color="text.secondary" component="div" sx={{ mt: 1 }}>
          {children}
        </Typography>
      ) : null}
    </Paper>
  );
}
