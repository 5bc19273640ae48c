import { describeError, isApiError } from '../../../lib/api-client';

/** User-administration failures in words; the rest falls back to the generic text. */
export function describeUserError(error: unknown): string {
  if (isApiError(error) && error.code === 'LAST_ADMIN') {
    return 'At least one enabled administrator must remain. Give another user the admin role first.';
  }
  return describeError(error);
}
