import Box from '@mui/material/Box';
import { VoidBodySchema } from '@paydesk/shared/api';
import type { ReactNode } from 'react';

/** The most a follow-up's comment may hold (a void's, a return's): the API's own limit. */
export const COMMENT_MAX = VoidBodySchema.shape.comment.maxLength ?? 255;

/**
 * A comment's length as the API counts it (the shared `freeText`): a line break as one character,
 * the ends trimmed, in the UTF-16 units zod's `max` counts.
 */
export function commentLength(text: string): number {
  return text.replace(/\r\n?/g, '\n').trim().length;
}

/**
 * A comment field's `error` and helper text with its live count ("120 / 255") at the end, so
 * that the limit is seen before it is passed, not only after Continue; past it, the field says so
 * at once. `problem`: the field's message after Continue or from the server, said before the
 * count (which is part of the field's description: a screen reader hears both).
 */
export function commentHelp(
  text: string,
  problem: string | undefined,
  hint: string,
): { error: boolean; helperText: ReactNode } {
  const length = commentLength(text);
  const over = length - COMMENT_MAX;
  const words =
    problem ??
    (over > 0
      ? `${String(over)} character${over === 1 ? '' : 's'} too many: up to ${String(COMMENT_MAX)}.`
      : hint);
  return {
    error: problem !== undefined || over > 0,
    helperText: (
      <Box component="span" sx={{ display: 'flex', justifyContent: 'space-between', gap: 2 }}>
        <span>{words}</span>{' '}
        <Box component="span" sx={{ flexShrink: 0, fontVariantNumeric: 'tabular-nums' }}>
          {`${String(length)} / ${String(COMMENT_MAX)}`}
        </Box>
      </Box>
    ),
  };
}
