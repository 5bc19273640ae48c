import { formatDuration } from '../../../lib/format';
import { useSession } from '../../auth/components/session-context';

/**
 * How long a held single payout or payout-form waits for approval before it lapses, for a help
 * text: 'within 3 days' (the BFF's PAYOUT_HOLD_MAX_AGE_MS, from the session reply). An older BFF
 * instance does not say, and then neither can the sentence exactly.
 */
export function useHoldTime(): string {
  const holdMaxAgeMs = useSession().settings?.payoutHoldMaxAgeMs;
  return holdMaxAgeMs === undefined
    ? 'within a set time (7 days unless your administrator changed it)'
    : `within ${formatDuration(holdMaxAgeMs)}`;
}
