// Which schema validates each operation of the catalog and which engine method answers it.
import type { z } from 'zod';
import type { Engine, Fields, Reply, RequestContext } from './engine.js';
import * as s from './schemas.js';

export interface OperationHandler {
  schema: z.ZodType<Record<string, unknown>>;
  /** Rules across fields, checked beside the schema. */
  crossCheck?: (fields: Fields) => s.Problem[];
  summary: string;
  handle(engine: Engine, ctx: RequestContext, fields: Fields): Reply;
}

export const handlers: Readonly<Record<string, OperationHandler>> = {
  sale: {
    schema: s.saleSchema,
    summary: 'Authorization and capture in one request',
    handle: (e, c, f) => e.cardPayment(c, f, 'sale'),
  },
  preauth: {
    schema: s.saleSchema,
    summary: 'Hold funds without settlement',
    handle: (e, c, f) => e.cardPayment(c, f, 'preauth'),
  },
  'sale-form': {
    schema: s.saleFormSchema,
    summary: 'Sale with the card entered on a hosted page',
    handle: (e, c, f) => e.hostedForm(c, f, 'sale-form'),
  },
  'preauth-form': {
    schema: s.saleFormSchema,
    summary: 'Preauth with the card entered on a hosted page',
    handle: (e, c, f) => e.hostedForm(c, f, 'preauth-form'),
  },
  'payment-form': {
    schema: s.saleFormSchema,
    summary: 'Universal hosted payment form (a sale)',
    handle: (e, c, f) => e.hostedForm(c, f, 'payment-form'),
  },
  'account-verification-form': {
    schema: s.accountVerificationFormSchema,
    summary: 'Zero-amount verification with the card entered on a hosted page',
    handle: (e, c, f) => e.hostedForm(c, f, 'account-verification-form'),
  },
  'payout-form': {
    schema: s.payoutFormSchema,
    summary: 'Payout whose destination is entered on a hosted page',
    handle: (e, c, f) => e.hostedForm(c, f, 'payout-form'),
  },
  'account-verification': {
    schema: s.accountVerificationSchema,
    summary: 'Zero-amount authorization confirming the card account',
    handle: (e, c, f) => e.accountVerification(c, f),
  },
  capture: {
    schema: s.captureSchema,
    crossCheck: s.amountWithCurrency,
    summary: 'Capture a preauth, once, fully or partly',
    handle: (e, c, f) => e.capture(c, f),
  },
  return: {
    schema: s.returnSchema,
    crossCheck: s.amountWithCurrency,
    summary: 'Return (refund) fully or partly; cancels an uncaptured hold',
    handle: (e, c, f) => e.return(c, f),
  },
  void: {
    schema: s.voidSchema,
    summary: 'Cancel an authorized, unsettled transaction',
    handle: (e, c, f) => e.void(c, f),
  },
  status: {
    schema: s.statusSchema,
    summary: 'The order status, amounts and operations',
    handle: (e, c, f) => e.status(c, f),
  },
  'create-card-ref': {
    schema: s.createCardRefSchema,
    summary: 'Card reference from an approved order',
    handle: (e, c, f) => e.createCardRef(c, f),
  },
  'create-card-ref-v4': {
    schema: s.createCardRefV4Schema,
    summary: 'Card reference from an approved order (RSA)',
    handle: (e, c, f) => e.createCardRef(c, f),
  },
  'get-card-info': {
    schema: s.getCardInfoSchema,
    summary: 'BIN, brand, masked number and expiry of a card reference',
    handle: (e, c, f) => e.getCardInfo(c, f),
  },
  'make-rebill': {
    schema: s.makeRebillSchema,
    summary: 'Charge a stored card',
    handle: (e, c, f) => e.makeRebill(c, f),
  },
  'upload-cres-result': {
    schema: s.uploadCresSchema,
    summary: 'Complete a 3-D Secure 2 challenge',
    handle: (e, c, f) => e.uploadCres(c, f),
  },
  'upload-method-url-result': {
    schema: s.uploadMethodSchema,
    summary: 'Complete the 3DS Method step',
    handle: (e, c, f) => e.uploadMethod(c, f),
  },
  'upload-pares-result': {
    schema: s.uploadParesSchema,
    summary: 'Complete a 3-D Secure 1.0.2 authentication',
    handle: (e, c, f) => e.uploadPares(c, f),
  },
  payout: {
    schema: s.payoutSchema,
    crossCheck: s.oneDestination,
    summary: 'Payout to a card, bank account, ewallet or phone',
    handle: (e, c, f) => e.payout(c, f),
  },
  'payout-v4': {
    schema: s.payoutSchema,
    crossCheck: s.oneDestination,
    summary: 'Single-step v4 payout',
    handle: (e, c, f) => e.payout(c, f),
  },
  'payout-check': {
    schema: s.payoutSchema,
    crossCheck: s.oneDestination,
    summary: 'Validate and register a two-step payout',
    handle: (e, c, f) => e.payoutCheck(c, f),
  },
  'payout-pay': {
    schema: s.payoutPaySchema,
    summary: 'Execute a registered payout, once',
    handle: (e, c, f) => e.payoutPay(c, f),
  },
  'create-recurring-payment': {
    schema: s.recurringSchema,
    crossCheck: s.cardOrCardRef,
    summary: 'Schedule recurring charges',
    handle: (e, c, f) => e.createRecurring(c, f),
  },
  transfer: {
    schema: s.transferSchema,
    summary: 'Card-to-card transfer',
    handle: (e, c, f) => e.transfer(c, f),
  },
  'transfer-by-ref': {
    schema: s.transferByRefSchema,
    summary: 'Transfer between two card references',
    handle: (e, c, f) => e.transferByRef(c, f),
  },
  'pan-eligibility-send': {
    schema: s.panEligibilitySchema,
    summary: 'Whether a referenced card can receive funds',
    handle: (e, c, f) => e.panEligibility(c, f),
  },
};
