import { z } from 'zod';

export const faultsSchema = z
  .object({
    errorRate: z.number().min(0).max(1).default(0),
    latencyMs: z.number().int().min(0).max(60_000).default(0),
    dropResponseRate: z.number().min(0).max(1).default(0),
    operations: z.array(z.string().min(1)).default([]),
  })
  .strict();

export type Faults = z.infer<typeof faultsSchema>;

export const NO_FAULTS: Faults = {
  errorRate: 0,
  latencyMs: 0,
  dropResponseRate: 0,
  operations: [],
};

export function affects(faults: Faults, operation: string): boolean {
  return faults.operations.length === 0 || faults.operations.includes(operation);
}
