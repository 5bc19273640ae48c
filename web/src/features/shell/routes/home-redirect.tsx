import { Navigate } from 'react-router';
import { useSession } from '../../auth/components/session-context';
import { homePathFor } from '../navigation';

/** `/` has no page of its own: each user lands on the first screen their roles open. */
export function HomeRedirect() {
  const { user } = useSession();
  return <Navigate to={homePathFor(user.roles)} replace />;
}
