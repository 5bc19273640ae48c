import type { Config } from '../config.js';

export function sessionCookieName(config: Config): string {
  return config.secureCookies ? '__Host-paydesk_session' : 'paydesk_session';
}

/**
 * The value of cookie `name`; undefined when absent or ambiguous: two different values (a cookie
 * planted beside the real one, e.g. from a sibling host) must not pick whose session acts.
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  let found: string | undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    if (found !== undefined && found !== value) return undefined;
    found = value;
  }
  return found;
}

export function sessionCookie(config: Config, token: string, maxAgeSeconds: number): string {
  const attrs = [
    `${sessionCookieName(config)}=${token}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}`,
  ];
  if (config.secureCookies) attrs.push('Secure');
  return attrs.join('; ');
}

export function clearedSessionCookie(config: Config): string {
  return sessionCookie(config, '', 0);
}
