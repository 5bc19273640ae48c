/**
 * The gateway's operation catalog: spec §4.2 plus the operations its signing examples use
 * (pan-eligibility/send, v4 transfer, transfer-by-ref, v4 payout), with the authentication scheme
 * of spec §5 and the decisions of design §3 where the spec is silent.
 */

/** Field names of a control formula, in concatenation order (the merchant control key follows). */
export type ControlField =
  | 'endpointId'
  | 'login'
  | 'client_orderid'
  | 'client-order-id'
  | 'orderid'
  | 'cardrefid'
  | 'amount'
  | 'currency'
  | 'email';

export type OAuthSignatureMethod = 'HMAC-SHA1' | 'RSA-SHA256';

export type OperationAuth =
  | { readonly scheme: 'control'; readonly formula: readonly ControlField[] }
  | { readonly scheme: 'oauth'; readonly method: OAuthSignatureMethod };

export type OperationVersion = 'v2' | 'v4' | '3ds/v1';

export interface OperationSpec {
  /** The path name ('sale', 'payout-check'); v4 twins of v2 operations get a `-v4` suffix. */
  readonly name: string;
  /** Path below the gateway base URL, with the `{endpointId}` placeholder. */
  readonly path: string;
  readonly version: OperationVersion;
  /** The spec's RequestOperation; our own name (marked in `note`) where the spec gives none. */
  readonly requestOperation: string;
  readonly auth: OperationAuth;
  readonly requestType: string;
  readonly replyType: string;
  /** Replies with a redirect address to a hosted page. */
  readonly hostedForm: boolean;
  /** Starts a new order (gets a new client_orderid); the others refer to an existing one. */
  readonly createsOrder: boolean;
  /** Moves or holds money: never re-sent by a client after an unknown outcome. */
  readonly moneyMoving: boolean;
  readonly note?: string;
}

const SALE_FORMULA: readonly ControlField[] = ['endpointId', 'client_orderid', 'amount', 'email'];
const ORDER_FORMULA: readonly ControlField[] = ['login', 'client_orderid', 'orderid'];
const AMOUNT_FORMULA: readonly ControlField[] = [
  'login',
  'client_orderid',
  'orderid',
  'amount',
  'currency',
];
const TDS_FORMULA: readonly ControlField[] = ['login', 'client-order-id', 'orderid'];
const VERIFICATION_FORMULA: readonly ControlField[] = ['endpointId', 'client_orderid', 'email'];

const control = (formula: readonly ControlField[]): OperationAuth => ({
  scheme: 'control',
  formula,
});
const hmac: OperationAuth = { scheme: 'oauth', method: 'HMAC-SHA1' };
const rsa: OperationAuth = { scheme: 'oauth', method: 'RSA-SHA256' };

interface Flags {
  hostedForm?: boolean;
  createsOrder?: boolean;
  moneyMoving?: boolean;
  note?: string;
}

function op(
  name: string,
  path: string,
  requestOperation: string,
  auth: OperationAuth,
  requestType: string,
  replyType: string,
  flags: Flags = {},
): OperationSpec {
  const version: OperationVersion = path.startsWith('/api/3ds/v1/')
    ? '3ds/v1'
    : path.startsWith('/api/v4/')
      ? 'v4'
      : 'v2';
  return {
    name,
    path,
    version,
    requestOperation,
    auth,
    requestType,
    replyType,
    hostedForm: flags.hostedForm ?? false,
    createsOrder: flags.createsOrder ?? false,
    moneyMoving: flags.moneyMoving ?? false,
    ...(flags.note === undefined ? {} : { note: flags.note }),
  };
}

const FORM_REPLY = 'AsyncCheckoutFormRedirect';
const ASYNC = 'AsyncResponse';
const NEW_ORDER = { createsOrder: true, moneyMoving: true } as const;
const HOSTED = { hostedForm: true, createsOrder: true, moneyMoving: true } as const;

// prettier-ignore
export const operations: readonly OperationSpec[] = Object.freeze([
  op('upload-cres-result', '/api/3ds/v1/upload-cres-result/{endpointId}', 'TDS_UPLOAD_CRES_RESULT', control(TDS_FORMULA), 'TdsCResResultRequest', ASYNC),
  op('upload-method-url-result', '/api/3ds/v1/upload-method-url-result/{endpointId}', 'TDS_UPLOAD_METHOD_URL_RESULT', control(TDS_FORMULA), 'TdsMethodUrlResultRequest', ASYNC),
  op('upload-pares-result', '/api/3ds/v1/upload-pares-result/{endpointId}', 'TDS_UPLOAD_PARES_RESULT', control(TDS_FORMULA), 'TdsPaResResultRequest', ASYNC),
  op('account-verification-form', '/api/v2/account-verification-form/{endpointId}', 'ACCOUNT_VERIFICATION_FORM', control(VERIFICATION_FORMULA), 'AccountVerificationFormRequest', FORM_REPLY, { hostedForm: true, createsOrder: true }),
  op('account-verification', '/api/v2/account-verification/{endpointId}', 'ACCOUNT_VERIFICATION', control(VERIFICATION_FORMULA), 'AccountVerificationRequest', ASYNC, { createsOrder: true }),
  op('capture', '/api/v2/capture/{endpointId}', 'CAPTURE', control(AMOUNT_FORMULA), 'CaptureRequest', ASYNC, { moneyMoving: true }),
  op('create-card-ref', '/api/v2/create-card-ref/{endpointId}', 'CARDREF', control(ORDER_FORMULA), 'CreateCardRefRequest', 'CardRefAsyncResponse'),
  op('get-card-info', '/api/v2/get-card-info/{endpointId}', 'CARDINFO', control(['login', 'cardrefid']), 'GetCardInfoRequest', 'CardInfoAsyncResponse', { note: 'control formula: design §3 (spec silent)' }),
  op('make-rebill', '/api/v2/make-rebill/{endpointId}', 'REBILL', control(['login', 'client_orderid', 'cardrefid', 'amount', 'currency']), 'RebillRequest', ASYNC, NEW_ORDER),
  op('payment-form', '/api/v2/payment-form/{endpointId}', 'PAYMENTFORM', control(SALE_FORMULA), 'PaymentFormRequest', FORM_REPLY, { ...HOSTED, note: 'control formula: the sale formula (design §3)' }),
  op('payout-form', '/api/v2/payout-form/{endpointId}', 'PAYOUTFORM', hmac, 'PayoutFormRequest', FORM_REPLY, { ...HOSTED, note: 'OAuth HMAC-SHA1 (design §3)' }),
  op('payout', '/api/v2/payout/{endpointId}', 'PAYOUT', hmac, 'PayoutRequest', ASYNC, NEW_ORDER),
  op('preauth-form', '/api/v2/preauth-form/{endpointId}', 'PREAUTHFORM', control(SALE_FORMULA), 'AuthFormRequest', FORM_REPLY, HOSTED),
  op('preauth', '/api/v2/preauth/{endpointId}', 'PREAUTH', control(SALE_FORMULA), 'AuthRequest', ASYNC, NEW_ORDER),
  op('return', '/api/v2/return/{endpointId}', 'RETURN', control(AMOUNT_FORMULA), 'ReturnRequest', ASYNC, { moneyMoving: true }),
  op('sale-form', '/api/v2/sale-form/{endpointId}', 'SALEFORM', control(SALE_FORMULA), 'SaleFormRequest', FORM_REPLY, HOSTED),
  op('sale', '/api/v2/sale/{endpointId}', 'SALE', control(SALE_FORMULA), 'SaleRequest', ASYNC, NEW_ORDER),
  op('status', '/api/v2/status/{endpointId}', 'STATUS', control(ORDER_FORMULA), 'StatusRequest', 'StatusResponse'),
  op('void', '/api/v2/void/{endpointId}', 'VOID', control(ORDER_FORMULA), 'VoidRequest', ASYNC, { moneyMoving: true }),
  op('pan-eligibility-send', '/api/v2/pan-eligibility/send/{endpointId}', 'PAN_ELIGIBILITY_SEND', hmac, 'PanEligibilitySendRequest', ASYNC, { note: 'signing examples only; names ours (design §3)' }),
  op('create-card-ref-v4', '/api/v4/create-card-ref/{endpointId}', 'CARDREF_V4', rsa, 'CreateCardRefV4Request', 'CardRefV4AsyncResponse'),
  op('create-recurring-payment', '/api/v4/create-recurring-payment/{endpointId}', 'CREATE_RP_V4', rsa, 'RecurringPaymentForCreation', 'CreateRecurringPaymentResponse', NEW_ORDER),
  op('payout-check', '/api/v4/payout-check/{endpointId}', 'PAYOUT_V4_CHECK', rsa, 'PayoutCheckRequest', ASYNC, { createsOrder: true }),
  op('payout-pay', '/api/v4/payout-pay/{endpointId}', 'PAYOUT_V4_PAY', rsa, 'PayoutPayRequest', ASYNC, { moneyMoving: true, note: 'request and reply types not given by the spec; names ours' }),
  op('payout-v4', '/api/v4/payout/{endpointId}', 'PAYOUT_V4', rsa, 'PayoutRequest', ASYNC, { ...NEW_ORDER, note: 'single-step v4 payout of the sample client; names ours' }),
  op('transfer', '/api/v4/transfer/{endpointId}', 'TRANSFER_V4', rsa, 'TransferRequest', ASYNC, { ...NEW_ORDER, note: 'signing examples only; names ours' }),
  op('transfer-by-ref', '/api/v4/transfer-by-ref/{endpointId}', 'TRANSFER_BY_REF_V4', rsa, 'TransferByRefRequest', ASYNC, { ...NEW_ORDER, note: 'sample client only; names ours' }),
]);

const byName = new Map(operations.map((o) => [o.name, o]));
const byPathStem = new Map(operations.map((o) => [o.path.replace('/{endpointId}', ''), o]));

export function operationByName(name: string): OperationSpec | undefined {
  return byName.get(name);
}

/** The concrete path of an operation for one endpoint (or endpoint group) id. */
export function operationPath(name: string, endpointId: number | string): string {
  const spec = byName.get(name);
  if (!spec) throw new Error(`unknown operation ${name}`);
  return spec.path.replace('{endpointId}', String(endpointId));
}

const OPERATION_PATH = /(\/api\/(?:v2|v4|3ds\/v1)\/[a-z-]+(?:\/[a-z-]+)?)\/([0-9]{1,18})$/;

/**
 * Finds the operation a request path addresses, wherever the gateway's base path ends
 * ('/paynet/api/v2/sale/1001' → sale on endpoint 1001).
 */
export function operationForPath(
  pathname: string,
): { operation: OperationSpec; endpointId: string } | undefined {
  const match = OPERATION_PATH.exec(pathname);
  if (!match?.[1] || !match[2]) return undefined;
  const operation = byPathStem.get(match[1]);
  return operation ? { operation, endpointId: match[2] } : undefined;
}
