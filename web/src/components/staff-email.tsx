import { useContext } from 'react';
import { SessionContext } from '../features/auth/components/session-context';
import { EmailText } from './email-text';

/**
 * Who did something, as a row's "by …" says it: "you" for the signed-in user (a list of one's own
 * payouts or links need not repeat one's address on every row), else their e-mail address.
 */
export function StaffEmail({ user }: { user: { id: string; email: string } }) {
  const session = useContext(SessionContext);
  return session?.user.id === user.id ? 'you' : <EmailText value={user.email} />;
}
