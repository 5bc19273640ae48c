import type { OrderKind, OrderStatus } from '@paydesk/shared/domain';

/** What a test card (or a stored card) makes the sandbox do. */
export type CardBehaviour =
  'approve' | 'decline' | 'error' | 'filter' | '3ds2-challenge' | '3ds-method' | '3ds1';

/** Card data as the sandbox keeps it: never the full number, never the CVV. */
export interface CardData {
  bin: string;
  lastFour: string;
  brand: string;
  expMonth: string;
  expYear: string;
  holder: string;
  behaviour: CardBehaviour;
}

export type OperationType =
  | 'sale'
  | 'preauth'
  | 'capture'
  | 'void'
  | 'return'
  | 'rebill'
  | 'payout'
  | 'payout-check'
  | 'payout-pay'
  | 'account-verification'
  | 'transfer'
  | 'pan-eligibility';

export interface OperationRecord {
  serial: string;
  type: OperationType;
  amountMinor: bigint;
  status: OrderStatus;
  /** ISO time the operation was accepted or last changed. */
  processingDate: string;
  /** Clock time at which a processing operation completes. */
  completeAt?: number | undefined;
  /** The final status it will reach. */
  outcome?: OrderStatus | undefined;
  errorMessage?: string | undefined;
  errorCode?: string | undefined;
}

export type PayoutDestination =
  | { kind: 'card'; card: CardData }
  | { kind: 'bank'; accountLastFour: string; bankName: string; bankBic: string }
  | { kind: 'ewallet'; ewalletType: string; ewalletId: string }
  | { kind: 'phone'; phone: string; fpsBankId: string };

export type ThreeDsFlow = '3ds2-challenge' | '3ds-method' | '3ds1';

export interface ThreeDsState {
  flow: ThreeDsFlow;
  step: 'method' | 'challenge' | 'done';
  /** Clock time after which the method step counts as not completed (threeDSCompInd N). */
  methodDeadline?: number | undefined;
  compInd?: string | undefined;
  /** The ACS result chosen on the ACS page, waiting for the merchant's upload. */
  acsResult?: 'Y' | 'N' | undefined;
  /** Started from a hosted page: the sandbox completes the order itself and redirects back. */
  hosted: boolean;
}

export type FormKind =
  'sale-form' | 'preauth-form' | 'payment-form' | 'payout-form' | 'account-verification-form';

export interface Order {
  orderid: string;
  merchantLogin: string;
  endpointId: number;
  /** The endpoint group the order was created through, if any. */
  groupId?: number | undefined;
  clientOrderId: string;
  kind: OrderKind;
  transactionType: OperationType;
  /** Status of the originating transaction. */
  status: OrderStatus;
  amountMinor: bigint;
  currency: string;
  authorizedMinor: bigint;
  capturedMinor: bigint;
  returnedMinor: bigint;
  captured: boolean;
  voided: boolean;
  holdCancelled: boolean;
  settled: boolean;
  settleAt?: number | undefined;
  card?: CardData | undefined;
  email?: string | undefined;
  firstName?: string | undefined;
  lastName?: string | undefined;
  orderDesc?: string | undefined;
  serverCallbackUrl?: string | undefined;
  redirectUrl?: string | undefined;
  operations: OperationRecord[];
  threeDs?: ThreeDsState | undefined;
  form?: { kind: FormKind; submitted: boolean } | undefined;
  /** Capability token in the addresses of the order's hosted, ACS and 3DS Method pages. */
  pageToken: string;
  /** `http://host:port/paynet` as the merchant reached it, for page addresses. */
  pageBase: string;
  payout?:
    | {
        destination?: PayoutDestination | undefined;
        stage?: 'registered' | 'paying' | 'paid' | 'expired' | undefined;
        expiresAt?: number | undefined;
      }
    | undefined;
  cardRefId?: string | undefined;
  recurringPaymentId?: string | undefined;
  errorMessage?: string | undefined;
  errorCode?: string | undefined;
  createdAt: number;
  /** Set by /sandbox/orders/:id/force: the status the gateway now reports regardless. */
  forcedStatus?: OrderStatus | undefined;
}

export interface CardRef {
  id: string;
  merchantLogin: string;
  endpointId: number;
  card: CardData;
  sourceOrderId: string;
  createdAt: number;
}

export interface RecurringPayment {
  id: string;
  merchantLogin: string;
  endpointId: number;
  clientOrderId: string;
  amountMinor: bigint;
  currency: string;
  period: 'day' | 'week' | 'month';
  interval: number;
  startDate: string;
  maxPayments?: number | undefined;
  card: CardData;
  cardRefId?: string | undefined;
  email: string;
  orderDesc: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
  serverCallbackUrl?: string | undefined;
  chargesMade: number;
  nextChargeAt?: number | undefined;
  chargeOrderIds: string[];
  state: 'active' | 'completed';
  createdAt: number;
}

export interface CallbackAttempt {
  at: string;
  httpStatus?: number | undefined;
  error?: string | undefined;
}

/** The states of a callback delivery (`CallbackDelivery.state`). */
export const CALLBACK_DELIVERY_STATES = [
  'pending',
  'delivered',
  'failed',
  'held',
  'dropped',
] as const;

export interface CallbackDelivery {
  id: string;
  orderid: string;
  serial: string;
  /** The full URL called (merchant's URL with the callback parameters appended). */
  url: string;
  params: Record<string, string>;
  attempts: CallbackAttempt[];
  /**
   * `held`: kept back by the `reverse` callbacks fault until it is lifted; `dropped`: never sent
   * (the `drop` callbacks fault).
   */
  state: (typeof CALLBACK_DELIVERY_STATES)[number];
  /** the delivery this one repeats (the `duplicate` callbacks fault) */
  duplicateOf?: string | undefined;
  nextAttemptAt?: number | undefined;
}
