import { Fragment } from 'react';

/**
 * A part of a word this long or longer may break inside (before a "." …); a shorter one fits any
 * column it is shown in, and stays whole.
 */
const LONG_PART = 16;

const DIGIT = /\d/;

/** Whether a line may break just before `part[at]` (never at its ends), `part` being long. */
function breaksBefore(part: string, at: number): boolean {
  const before = part.charAt(at - 1);
  const here = part.charAt(at);
  const after = part.charAt(at + 1);
  if (before === '/' || before === '_') return true;
  // Before a dot, so that a line never ends in one and reads as a sentence's end; but never
  // inside a number ("1,000.50", "10.2.3").
  return here === '.' && after !== '' && !(DIGIT.test(before) && DIGIT.test(after));
}

/** `part` cut where a line may break inside it: nowhere when it is short. */
function cutLong(part: string): string[] {
  if (part.length < LONG_PART) return [part];
  const cuts: string[] = [];
  let start = 0;
  for (let at = 1; at < part.length; at += 1) {
    if (!breaksBefore(part, at)) continue;
    cuts.push(part.slice(start, at));
    start = at;
  }
  cuts.push(part.slice(start));
  return cuts;
}

/**
 * `text` in the pieces a line may break between, where a reader expects it: an e-mail address
 * after its "@"; a long part of a word (a long name or domain of an address, a host name, an id)
 * also after "/" and "_" and before a "." (not inside a number). Short parts and whitespace stay
 * as they are.
 */
export function breakablePieces(text: string): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const word of text.split(/(\s+)/)) {
    // "name@" and "domain": each a part, after the "@" that is a word's natural seam.
    const parts = word.split(/(?<=@)(?=.)/);
    parts.forEach((part, index) => {
      const cuts = cutLong(part);
      cuts.forEach((cut, at) => {
        if (index > 0 || at > 0) {
          pieces.push(current);
          current = '';
        }
        current += cut;
      });
    });
  }
  pieces.push(current);
  return pieces;
}

/**
 * Text whose unbroken words wrap at sensible points in a narrow column (`breakablePieces`):
 * `support.demo@` / `paydesk.local` rather than `support.demo@paydesk.loc` / `al`. It reads and
 * copies as the same text: the points are `<wbr>`s.
 */
export function BreakableText({ text }: { text: string }) {
  const pieces = breakablePieces(text);
  if (pieces.length === 1) return <>{text}</>;
  return (
    <>
      {pieces.map((piece, index) => (
        // The pieces are the text's, in order, and never reorder: their place is their identity.
        <Fragment key={index}>
          {index === 0 ? null : <wbr />}
          {piece}
        </Fragment>
      ))}
    </>
  );
}
