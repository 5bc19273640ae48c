// What `GET /api/events` streams (server-sent events): one `event:` name per subject, its data one
// of these JSON objects. Every BFF instance streams the changes made through any instance.
import { z } from 'zod';
import { IsoDateTimeSchema } from './common.js';
import { TransactionEventSchema } from './payments.js';
import { PaymentLinkKindSchema, PaymentLinkStateSchema, PayoutStateSchema } from './payouts.js';

/**
 * `GET /api/events` query: none (the SPA's EventSource opens, and reopens, the bare address);
 * strict: a parameter is refused, never ignored, as on every other route.
 */
export const EventsQuerySchema = z.object({}).strict();

/** `event: payout`: a payout was prepared or changed (approval, rejection, gateway outcome). */
export const PayoutChangeEventSchema = z.object({
  type: z.enum(['payout.created', 'payout.updated']),
  payoutId: z.string(),
  state: PayoutStateSchema,
  orderid: z.string().nullable(),
  at: IsoDateTimeSchema,
});
export type PayoutChangeEvent = z.infer<typeof PayoutChangeEventSchema>;

/** `event: payment_link`: a payment link was created or changed (approval, rejection, sent). */
export const PaymentLinkChangeEventSchema = z.object({
  type: z.enum(['payment_link.created', 'payment_link.updated']),
  linkId: z.string(),
  kind: PaymentLinkKindSchema,
  state: PaymentLinkStateSchema,
  orderid: z.string().nullable(),
  at: IsoDateTimeSchema,
});
export type PaymentLinkChangeEvent = z.infer<typeof PaymentLinkChangeEventSchema>;

export const LiveEventSchema = z.discriminatedUnion('type', [
  TransactionEventSchema,
  PayoutChangeEventSchema,
  PaymentLinkChangeEventSchema,
]);
export type LiveEvent = z.infer<typeof LiveEventSchema>;

/** The SSE `event:` name of each subject. */
export const LIVE_EVENT_NAMES = ['transaction', 'payout', 'payment_link'] as const;
export type LiveEventName = (typeof LIVE_EVENT_NAMES)[number];

export function liveEventName(event: LiveEvent): LiveEventName {
  if (event.type.startsWith('payout.')) return 'payout';
  if (event.type.startsWith('payment_link.')) return 'payment_link';
  return 'transaction';
}
