import { pino, type DestinationStream, type Logger } from 'pino';

/** Every path that may hold a secret, a card number, a CVV, a password, a cookie or a token. */
const SECRET_KEYS = [
  'password',
  'currentPassword',
  'newPassword',
  'totp',
  'secret',
  'recoveryCodes',
  'otpauthUri',
  'controlKey',
  'control',
  'privateKey',
  'privateKeyPem',
  'sessionSecret',
  'cardNumber',
  'card_number',
  'credit_card_number',
  'cvv',
  'cvv2',
  'pan',
  'token',
  'authorization',
  'cookie',
];

export const REDACT_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers.authorization',
  ...SECRET_KEYS.map((k) => k),
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.${k}`),
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'paydesk-bff' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
