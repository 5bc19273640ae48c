// Every timing of the payments module, injectable so tests run in milliseconds (issue 5 rules).
import { randomUUID } from 'node:crypto';

export interface ReconcileTimings {
  /** the fast phase: from the first attempt, this long */
  fastPhaseMs: number;
  fastMinMs: number;
  fastMaxMs: number;
  slowMinMs: number;
  slowMaxMs: number;
  /** after this long from the first attempt the job stops (the operation stays `unknown`) */
  horizonMs: number;
  /** how long a claimed job belongs to one instance */
  leaseMs: number;
  /** how often the loop looks for due jobs */
  pollIntervalMs: number;
  batchSize: number;
  /** an operation whose reply was lost and that `status` does not show after this long was not applied */
  notAppliedAfterMs: number;
}

/**
 * The `status` check of an approved sale, rebill, transfer or capture once it is due to settle
 * (settlement.ts): the gateway settles it 24 h after approval and sends no callback for that.
 */
export interface SettlementTimings {
  /** the check, this long after the approval (24 h and a margin for the gateway's clock) */
  afterMs: number;
  /** a check that finds the order not settled yet (clock skew) asks again this long later */
  retryAfterMs: number;
  /** checks per order at most, the first included */
  maxChecks: number;
  /** how often one instance looks for due checks */
  pollIntervalMs: number;
  /** checks one pass makes at most, one after another */
  batchSize: number;
}

/**
 * The callback receiver's database steps (store, apply): how many run at once, and how many new
 * callbacks may wait for a turn when all are taken (beyond: 503, nothing stored).
 */
export interface CallbackLimits {
  concurrency: number;
  queueLimit: number;
}

export interface PaymentsOptions {
  /** how long to wait for the gateway's reply before the outcome is `unknown` */
  gatewayTimeoutMs: number;
  reconcile: ReconcileTimings;
  settlement: SettlementTimings;
  /** idempotency keys are kept at least this long (≥ 24 h) */
  idempotencyRetentionMs: number;
  /** create-card-ref: v2 (control) or v4 (OAuth RSA-SHA256, needs the merchant RSA key) */
  cardRefVersion: 'v2' | 'v4';
  /** SSE comment line interval that keeps proxies from closing idle streams */
  sseHeartbeatMs: number;
  /** live-event streams one session may hold open on one instance */
  liveStreamsPerSession: number;
  /** identifies this instance in job leases */
  instanceId: string;
  /** [0, 1): spreads reconcile attempts inside their window */
  random: () => number;
  callbacks: CallbackLimits;
}

export const DAY_MS = 24 * 60 * 60 * 1000;

/** `settlement.afterMs` by default: the gateway's 24 h and 5 min for its clock and its batch. */
export const SETTLEMENT_CHECK_AFTER_MS_DEFAULT = DAY_MS + 5 * 60_000;

export function defaultPaymentsOptions(): PaymentsOptions {
  return {
    gatewayTimeoutMs: 15_000,
    reconcile: {
      fastPhaseMs: 5 * 60_000,
      fastMinMs: 3_000,
      fastMaxMs: 5_000,
      slowMinMs: 5 * 60_000,
      slowMaxMs: 10 * 60_000,
      horizonMs: 60 * 60_000,
      leaseMs: 30_000,
      pollIntervalMs: 1_000,
      batchSize: 20,
      notAppliedAfterMs: 60_000,
    },
    settlement: {
      afterMs: SETTLEMENT_CHECK_AFTER_MS_DEFAULT,
      retryAfterMs: 10 * 60_000,
      maxChecks: 6,
      pollIntervalMs: 2_000,
      batchSize: 10,
    },
    idempotencyRetentionMs: DAY_MS + 60 * 60_000,
    cardRefVersion: 'v2',
    sseHeartbeatMs: 15_000,
    liveStreamsPerSession: 10,
    instanceId: randomUUID(),
    random: Math.random,
    callbacks: { concurrency: 8, queueLimit: 1_000 },
  };
}

export type PaymentsOptionsInput = Partial<Omit<PaymentsOptions, 'reconcile' | 'settlement'>> & {
  reconcile?: Partial<ReconcileTimings>;
  settlement?: Partial<SettlementTimings>;
};

export function resolveOptions(input: PaymentsOptionsInput = {}): PaymentsOptions {
  const d = defaultPaymentsOptions();
  const options: PaymentsOptions = {
    ...d,
    ...input,
    reconcile: { ...d.reconcile, ...input.reconcile },
    settlement: { ...d.settlement, ...input.settlement },
  };
  if (options.idempotencyRetentionMs < DAY_MS)
    throw new Error('idempotencyRetentionMs must be at least 24 h');
  return options;
}

/** The delay before the next reconcile attempt of a job whose schedule began at `firstAt`. */
export function nextReconcileDelay(
  t: ReconcileTimings,
  firstAt: number,
  now: number,
  random: () => number,
): number | null {
  const elapsed = now - firstAt;
  if (elapsed >= t.horizonMs) return null;
  const [min, max] =
    elapsed < t.fastPhaseMs ? [t.fastMinMs, t.fastMaxMs] : [t.slowMinMs, t.slowMaxMs];
  return Math.round(min + (max - min) * random());
}
