import type { SessionResponse } from '@paydesk/shared/api';
import { createContext, useContext } from 'react';

export const SessionContext = createContext<SessionResponse | null>(null);

/** The signed-in session; only valid below RequireSession. */
export function useSession(): SessionResponse {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession is only available below RequireSession');
  return session;
}
