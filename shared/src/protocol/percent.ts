import { ProtocolError } from './errors.js';

// encodeURIComponent leaves A-Z a-z 0-9 - _ . ! ~ * ' ( ) unencoded; RFC 3986 unreserved is only
// A-Z a-z 0-9 - . _ ~, so the five sub-delims it misses are encoded here.
const SUB_DELIMS = /[!'()*]/g;
const encodeSubDelim = (c: string): string => `%${c.charCodeAt(0).toString(16).toUpperCase()}`;

/** RFC 3986 / RFC 5849 §3.6 percent-encoding: UTF-8, uppercase hex, space as %20. */
export function percentEncode(value: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(value);
  } catch {
    throw new ProtocolError(
      'INVALID_ENCODING',
      'value is not well-formed Unicode (lone surrogate)',
    );
  }
  return encoded.replace(SUB_DELIMS, encodeSubDelim);
}

/** Inverse of percentEncode; `+` is a literal plus here (see formDecode for form bodies). */
export function percentDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new ProtocolError('INVALID_ENCODING', 'malformed percent-encoding');
  }
}

/** An application/x-www-form-urlencoded body, encoded the RFC 3986 way (space as %20). */
export function formEncode(pairs: readonly (readonly [string, string])[]): string {
  return pairs.map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`).join('&');
}

/**
 * Decodes a form body into ordered pairs, keeping repeated names. Accepts both `+` and `%20` for a
 * space, as browsers and other clients send either.
 */
export function formDecode(body: string): [string, string][] {
  const pairs: [string, string][] = [];
  if (body === '') return pairs;
  for (const part of body.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq === -1 ? part : part.slice(0, eq);
    const rawValue = eq === -1 ? '' : part.slice(eq + 1);
    pairs.push([
      percentDecode(rawName.replaceAll('+', ' ')),
      percentDecode(rawValue.replaceAll('+', ' ')),
    ]);
  }
  return pairs;
}
