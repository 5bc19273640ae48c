import type { Role } from '@paydesk/shared/api';
import type { ReactNode } from 'react';
import { ForbiddenState } from '../../../components/page-states';
import { useSession } from './session-context';

/** The client-side mirror of the server's role table: a screen the roles do not open says so. */
export function RequireRoles({
  roles,
  what,
  children,
}: {
  roles: readonly Role[];
  what: string;
  children: ReactNode;
}) {
  const { user } = useSession();
  if (!roles.some((role) => user.roles.includes(role)))
    return <ForbiddenState what={what} asPage />;
  return children;
}
