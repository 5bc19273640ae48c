/** Codes a caller can switch on; the message says what was wrong, never a secret. */
export type ProtocolErrorCode =
  | 'INVALID_AMOUNT'
  | 'INVALID_ENCODING'
  | 'UNKNOWN_OPERATION'
  | 'INVALID_KEY'
  | 'MISSING_SECRET'
  | 'INVALID_REPLY'
  | 'INVALID_URL';

export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';

  constructor(
    readonly code: ProtocolErrorCode,
    message: string,
  ) {
    super(message);
  }
}
