import type { FieldError } from 'react-hook-form';

/**
 * The helper text under a field: the server's own words for a server error, our sentence for a
 * client-side rule (zod's default texts are written for developers), else the hint.
 */
export function fieldHelp(
  error: FieldError | undefined,
  rule: string,
  hint?: string,
): string | undefined {
  if (error === undefined) return hint;
  if (error.type === 'server' && error.message) return error.message;
  return rule;
}
