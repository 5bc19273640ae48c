import Link from '@mui/material/Link';
import { Link as RouterLink } from 'react-router';
import { useSession } from '../../auth/components/session-context';
import { allows, SCREENS } from '../../shell/navigation';

/** A card reference id; for the roles that open Cards, a link there with the reference filled in. */
export function CardRefLink({ cardRefId }: { cardRefId: string }) {
  const { user } = useSession();
  if (!allows(SCREENS.cards, user.roles)) return <code>{cardRefId}</code>;
  return (
    <Link
      component={RouterLink}
      to={`/cards?ref=${encodeURIComponent(cardRefId)}`}
      title="Open in Cards: card info and rebill"
    >
      <code>{cardRefId}</code>
    </Link>
  );
}
