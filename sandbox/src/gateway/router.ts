// The gateway API under /paynet: Accept check, raw form body, validation, authentication,
// fault injection, then the engine.
import { randomUUID } from 'node:crypto';
import express, { type Request, type Response } from 'express';
import {
  GATEWAY_CONTENT_TYPE,
  ProtocolError,
  controlFields,
  formDecode,
  operations,
  verifyControl,
  verifyOAuth,
  type OperationSpec,
} from '@paydesk/shared/protocol';
import type { Logger } from 'pino';
import type { MerchantConfig } from '../config.js';
import { GatewayError, errorBody, sendGateway, type FieldProblem } from '../http/gateway-error.js';
import type { Engine, Fields, RequestContext } from './engine.js';
import { affects, type DelayedRequests, type Faults } from './faults.js';
import { handlers, type OperationHandler } from './handlers.js';
import type { NonceStore } from './nonces.js';

export interface GatewayRouterDeps {
  engine: Engine;
  nonces: NonceStore;
  faults: () => Faults;
  /** where requests waiting out `latencyMs` or `hold` are listed */
  delayed: DelayedRequests;
  random: () => number;
  logger: Logger;
}

/** The `/paynet` prefix the operation paths of spec §4.2 are appended to. */
export const GATEWAY_PREFIX = '/paynet';

export function baseUrlOf(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}${GATEWAY_PREFIX}`;
}

function acceptsGatewayJson(req: Request): boolean {
  const accept = req.get('accept');
  if (accept === undefined) return false;
  return accept
    .split(',')
    .some((part) => part.split(';')[0]?.trim().toLowerCase() === GATEWAY_CONTENT_TYPE);
}

/** The order a held request names (for `GET /sandbox/faults/delayed`), read before it is validated. */
function heldOrder(body: unknown): { orderid?: string; clientOrderid?: string } {
  if (typeof body !== 'string') return {};
  let pairs: Map<string, string>;
  try {
    pairs = new Map(formDecode(body));
  } catch {
    return {}; // refused once the wait is over, like any malformed body
  }
  const orderid = pairs.get('orderid');
  const clientOrderid = pairs.get('client_orderid');
  return {
    ...(orderid ? { orderid } : {}),
    ...(clientOrderid ? { clientOrderid } : {}),
  };
}

/** Form pairs to fields: oauth_* aside, empty values absent, a name repeated with different values refused. */
function fieldsOf(pairs: [string, string][]): Fields {
  const fields: Fields = {};
  const problems: FieldProblem[] = [];
  for (const [name, value] of pairs) {
    if (name.startsWith('oauth_')) continue;
    const previous = fields[name];
    if (previous !== undefined && previous !== value) {
      problems.push({ name, message: 'is given more than once with different values' });
    }
    if (value !== '') fields[name] = value;
  }
  if (problems.length > 0) throw GatewayError.validation(problems);
  return fields;
}

function validate(handler: OperationHandler, fields: Fields): Fields {
  const parsed = handler.schema.safeParse(fields);
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  const add = (problem: FieldProblem) => {
    if (seen.has(problem.name)) return;
    seen.add(problem.name);
    problems.push(problem);
  };
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      add({ name: issue.path.map(String).join('.') || 'body', message: issue.message });
  }
  for (const problem of handler.crossCheck?.(fields) ?? []) add(problem);
  if (problems.length > 0 || !parsed.success) throw GatewayError.validation(problems);
  const out: Fields = {};
  for (const [name, value] of Object.entries(parsed.data))
    if (typeof value === 'string') out[name] = value;
  return out;
}

function authenticateControl(
  op: OperationSpec,
  merchant: MerchantConfig,
  endpointId: string,
  fields: Fields,
): void {
  if (fields.login !== undefined && fields.login !== merchant.login) {
    throw GatewayError.auth(
      `login does not belong to endpoint ${endpointId}; use the login of the endpoint's merchant`,
    );
  }
  const formulaFields = { ...fields, endpointId };
  if (!verifyControl(op.name, formulaFields, merchant.controlKey, fields.control)) {
    const names = controlFields(op.name).join(', ');
    throw GatewayError.auth(
      `control mismatch for operation ${op.name}: expected fields ${names}, then the merchant control key; amount in minor units, SHA-1 as hex`,
    );
  }
}

export function gatewayRouter(deps: GatewayRouterDeps): express.Router {
  const router = express.Router();
  const formBody = express.text({ type: 'application/x-www-form-urlencoded', limit: '256kb' });

  for (const op of operations) {
    const handler = handlers[op.name];
    if (!handler) throw new Error(`no sandbox handler for operation ${op.name}`);
    const path = GATEWAY_PREFIX + op.path.replace('{endpointId}', ':endpointId');

    router.post(path, formBody, async (req: Request, res: Response) => {
      const serial = randomUUID();
      res.locals.operation = op.name;
      try {
        if (!acceptsGatewayJson(req)) {
          throw new GatewayError(
            406,
            'NOT_ACCEPTABLE',
            `send the header Accept: ${GATEWAY_CONTENT_TYPE}`,
          );
        }
        if (!req.is('application/x-www-form-urlencoded') || typeof req.body !== 'string') {
          throw GatewayError.validation([
            { name: 'body', message: 'must be application/x-www-form-urlencoded' },
          ]);
        }
        const endpointParam = String(req.params.endpointId);
        const pathId = /^[0-9]{1,15}$/.test(endpointParam) ? Number(endpointParam) : Number.NaN;
        const merchant = Number.isNaN(pathId) ? undefined : deps.engine.merchantForId(pathId);
        if (!merchant) throw GatewayError.notFound(`unknown endpoint ${endpointParam}`);

        const faults = deps.faults();
        const faulty = affects(faults, op.name);
        if (faulty && (faults.hold || faults.latencyMs > 0)) {
          // Applied after the wait even if the client has gone meanwhile, as a real gateway would.
          const done = deps.delayed.add(op.name, heldOrder(req.body));
          if (faults.hold) await deps.delayed.released();
          if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs));
          done();
        }
        if (faulty && faults.errorRate > 0 && deps.random() < faults.errorRate) {
          throw new GatewayError(
            500,
            'INTERNAL',
            'injected fault: the gateway failed before applying the operation',
          );
        }

        const pairs = formDecode(req.body);
        const fields = validate(handler, fieldsOf(pairs));
        if (op.auth.scheme === 'control') {
          authenticateControl(op, merchant, endpointParam, fields);
        } else {
          const verdict = verifyOAuth({
            method: 'POST',
            url: `${req.protocol}://${req.get('host') ?? ''}${req.originalUrl}`,
            authorization: req.get('authorization'),
            body: pairs,
            merchantControlKey: merchant.controlKey,
            publicKeyPem: merchant.publicKeyPem,
            expectedMethod: op.auth.method,
            // Transport freshness is judged on real time: a client signs with its own wall clock,
            // whatever the sandbox clock has been advanced to.
            nowSeconds: Math.floor(Date.now() / 1000),
            seenNonce: deps.nonces.check,
          });
          if (!verdict.ok) throw GatewayError.auth(verdict.reason);
          if (verdict.consumerKey !== merchant.login) {
            throw GatewayError.auth(
              `oauth_consumer_key must be the login of the merchant of endpoint ${endpointParam}`,
            );
          }
          if (fields.login !== undefined && fields.login !== merchant.login) {
            throw GatewayError.auth('login must equal oauth_consumer_key');
          }
        }

        const ctx: RequestContext = { merchant, pathId, serial, baseUrl: baseUrlOf(req) };
        const reply = handler.handle(deps.engine, ctx, fields);
        if (faulty && faults.dropResponseRate > 0 && deps.random() < faults.dropResponseRate) {
          res.locals.dropped = true;
          req.socket.destroy();
          return;
        }
        sendGateway(res, 200, reply);
      } catch (error) {
        const known =
          error instanceof GatewayError
            ? error
            : error instanceof ProtocolError
              ? GatewayError.validation([
                  {
                    name: error.code === 'INVALID_AMOUNT' ? 'amount' : 'body',
                    message: error.message,
                  },
                ])
              : undefined;
        if (!known) deps.logger.error({ err: error, operation: op.name }, 'unexpected error');
        const reply = known ?? new GatewayError(500, 'INTERNAL', 'internal error');
        sendGateway(res, reply.httpStatus, errorBody(reply, serial));
      }
    });
  }
  return router;
}
