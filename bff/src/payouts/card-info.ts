// get-card-info for support and finance: a stated reason (audited by the route), and only BIN,
// brand, masked number and expiry in the reply — never the holder's name or anything more.
import type { CardInfo } from '@paydesk/shared/api';
import { AppError } from '../errors.js';
import { maskTail } from '../gateway-client/redact.js';
import { resolveEndpoint, type Ctx } from './context.js';
import { gatewayRefusal } from './gateway-errors.js';

export const CARD_REF_ID = /^[A-Za-z0-9._-]{1,64}$/;

export class CardInfoService {
  constructor(private readonly c: Ctx) {}

  async info(cardRefId: string, endpointId: string | undefined): Promise<CardInfo> {
    const endpoint = resolveEndpoint(this.c.config, endpointId, undefined);
    const outcome = await this.c.gateway.send('get-card-info', endpoint, { cardrefid: cardRefId });
    if (outcome.kind !== 'reply') {
      const code = outcome.exchange.reply?.['error-code'];
      throw new AppError(
        'GATEWAY_UNAVAILABLE',
        `The gateway did not answer get-card-info (${outcome.kind === 'unknown' ? outcome.reason : 'not sent'}${code === undefined ? '' : `, ${code}`}). Try again.`,
        { gatewayErrorCode: code ?? null },
      );
    }
    const { httpStatus, reply } = outcome;
    if (httpStatus !== 200 || reply.type !== 'get-card-info-response')
      throw gatewayRefusal(httpStatus, reply, 'get-card-info');
    const f = reply.fields;
    const bin = f.bin ?? null;
    const last4 = f['last-four-digits'] ?? null;
    const masked = f['masked-number'];
    // Only a masked number leaves: the gateway's own mask if it has one, else BIN + last four.
    const safeMask =
      masked !== undefined && !/\d{11,}/.test(masked.replace(/\s/g, ''))
        ? masked
        : bin !== null && last4 !== null
          ? `${bin}******${last4}`
          : last4 !== null
            ? maskTail(`000000000000${last4}`)
            : '****';
    return {
      cardRefId,
      bin,
      brand: f['card-type'] ?? null,
      maskedNumber: safeMask,
      expiryMonth: f['expire-month'] ?? null,
      expiryYear: f['expire-year'] ?? null,
    };
  }
}
