import { z } from 'zod';

/** `GET /healthz` reply (liveness: the process answers). */
export const HealthResponseSchema = z.object({ status: z.literal('ok') });

/** `GET /readyz` reply: 200 when every check is ok, 503 otherwise. */
export const ReadyResponseSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  checks: z.object({
    database: z.enum(['ok', 'unavailable']),
    gateway: z.enum(['ok', 'unavailable']),
  }),
});
export type ReadyResponse = z.infer<typeof ReadyResponseSchema>;
