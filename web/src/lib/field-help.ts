import { isFreeTextRefusal } from '@paydesk/shared/api';
import type { FieldError } from 'react-hook-form';

/**
 * A shared free-text refusal (a card number, a control or bidi character) as a sentence: shown
 * instead of a field's usual rule, which would not say what is wrong.
 */
export function textRefusal(message: string | undefined): string | undefined {
  if (message === undefined || !isFreeTextRefusal(message)) return undefined;
  return `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;
}

/** The first free-text refusal among a parse's issues (see `textRefusal`), if any. */
export function textRefusalIn(issues: readonly { message: string }[]): string | undefined {
  for (const issue of issues) {
    const refusal = textRefusal(issue.message);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}

/**
 * The helper text under a field: the server's own words for a server error, our sentence for a
 * client-side rule (zod's default texts are written for developers) unless the shared rules
 * refused the text itself (a card number, a control character), else the hint.
 */
export function fieldHelp(
  error: FieldError | undefined,
  rule: string,
  hint?: string,
): string | undefined {
  if (error === undefined) return hint;
  if (error.type === 'server' && error.message) return error.message;
  return textRefusal(error.message) ?? rule;
}
