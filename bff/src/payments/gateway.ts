// The payments module's use of the lead's gateway client: one client per BFF, the clock injected.
import type { Logger } from 'pino';
import { GatewayClient, type GatewayOutcome } from '../gateway-client/client.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';

export type SendFn = (
  operation: string,
  endpointId: string,
  fields: Readonly<Record<string, string>>,
) => Promise<GatewayOutcome>;

export function createGatewayClient(
  config: Config,
  clock: Clock,
  timeoutMs: number,
  logger?: Logger,
): GatewayClient {
  return new GatewayClient({
    baseUrl: config.gatewayBaseUrl,
    merchant: {
      login: config.merchant.login,
      controlKey: config.merchant.controlKey,
      rsaPrivateKeyPem: config.merchant.rsaPrivateKeyPem,
    },
    timeoutMs,
    now: () => new Date(clock.now()),
    ...(logger === undefined ? {} : { logger }),
  });
}

/** The exchange as the timeline keeps it (already redacted by the client). */
export function exchangeData(outcome: GatewayOutcome): Record<string, unknown> {
  return {
    ...outcome.exchange,
    outcome: outcome.kind,
    ...(outcome.kind === 'reply' ? {} : { reason: outcome.reason }),
  };
}

/** Configured endpoint and endpoint-group ids, in the configured order. */
export function configuredEndpointIds(config: Config): string[] {
  return config.merchant.endpoints.map((e) => e.id);
}
