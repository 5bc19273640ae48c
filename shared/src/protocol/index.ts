// @paydesk/shared/protocol: the wire rules of the gateway (spec §4–5, design §3). Pure code, no I/O.
export { ProtocolError, type ProtocolErrorCode } from './errors.js';
export { percentEncode, percentDecode, formEncode, formDecode } from './percent.js';
export { toMinorUnits, formatMinorUnits, isPositiveAmount } from './money.js';
export {
  controlValue,
  controlFields,
  controlConcatenation,
  verifyControl,
  callbackControl,
  verifyCallbackControl,
  hexDigestEquals,
  type ControlFields,
} from './control.js';
export {
  normalizeUrl,
  normalizeParameters,
  oauthBaseString,
  hmacSha1Signature,
  hmacSigningKey,
  rsaSha256Signature,
  signOAuth,
  verifyOAuth,
  parseOAuthHeader,
  OAUTH_TIMESTAMP_WINDOW_SECONDS,
  type SignOAuthRequest,
  type SignedOAuth,
  type VerifyOAuthRequest,
  type VerifyOAuthResult,
  type ParsedAuthorization,
} from './oauth.js';
export { loadPrivateKey, loadPublicKey, MIN_RSA_BITS } from './keys.js';
export { parseGatewayReply, encodeGatewayReply, REPLY_TYPES, type GatewayReply } from './reply.js';
export {
  operations,
  operationByName,
  operationForPath,
  operationPath,
  type OperationSpec,
  type OperationAuth,
  type OperationVersion,
  type ControlField,
  type OAuthSignatureMethod,
} from './operations.js';
export {
  TRANSACTION_STATUSES,
  FINAL_STATUSES,
  UNKNOWN_STATUS,
  isFinalStatus,
  isTransactionStatus,
  GATEWAY_CONTENT_TYPE,
  FORM_CONTENT_TYPE,
  type TransactionStatus,
} from './statuses.js';
