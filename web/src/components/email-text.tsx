import { BreakableText } from './breakable-text';

/**
 * An e-mail address that may wrap after the `@` (never in the middle of a name) in narrow cells;
 * a long name or domain also before a "." (`breakablePieces`).
 */
export function EmailText({ value }: { value: string }) {
  return <BreakableText text={value} />;
}
