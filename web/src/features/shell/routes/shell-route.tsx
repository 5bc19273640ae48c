import { NotifierProvider } from '../../../components/notifier';
import { RequireSession } from '../../auth/components/require-session';
import { AppLayout } from '../components/app-layout';

/** Everything behind sign-in: session guard, snackbar, app bar and navigation. */
export default function ShellRoute() {
  return (
    <RequireSession>
      <NotifierProvider>
        <AppLayout />
      </NotifierProvider>
    </RequireSession>
  );
}
