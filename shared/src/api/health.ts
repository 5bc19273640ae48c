import { z } from 'zod';

/** `GET /healthz` reply (liveness: the process answers). */
export const HealthResponseSchema = z.object({ status: z.literal('ok') });

/**
 * `GET /readyz` reply: 200 when the database answers, 503 otherwise. `checks.gateway` tells
 * whether the gateway answers too; it does not decide readiness (a gateway outage must not take
 * the whole back office out of the load balancer).
 */
export const ReadyResponseSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  checks: z.object({
    database: z.enum(['ok', 'unavailable']),
    gateway: z.enum(['ok', 'unavailable']),
  }),
});
export type ReadyResponse = z.infer<typeof ReadyResponseSchema>;
