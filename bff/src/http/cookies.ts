import type { Config } from '../config.js';

export function sessionCookieName(config: Config): string {
  return config.secureCookies ? '__Host-paydesk_session' : 'paydesk_session';
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
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
