// The control API for tests and demos (JSON, outside the gateway paths): clock, faults, orders,
// forced statuses, one order's 3-D Secure Method timeout, the callback delivery log, reset.
import express, { type Response } from 'express';
import { z } from 'zod';
import type { VirtualClock, Scheduler } from '../clock.js';
import type { Engine } from '../gateway/engine.js';
import { orderStage, replyStatus } from '../gateway/engine.js';
import { faultsSchema, type DelayedRequest, type Faults } from '../gateway/faults.js';
import { GatewayError } from '../http/gateway-error.js';
import type { Store } from '../state/store.js';
import { CALLBACK_DELIVERY_STATES, type Order } from '../state/types.js';

export interface ControlDeps {
  engine: Engine;
  store: Store;
  clock: VirtualClock;
  scheduler: Scheduler;
  getFaults: () => Faults;
  /** requests waiting out `latencyMs` or `hold` right now */
  delayedRequests: () => DelayedRequest[];
  /** resolves once what the change releases (held callbacks) was delivered */
  setFaults: (faults: Faults) => Promise<void>;
  reset: () => void;
}

/** JSON with bigints as decimal text of minor units. */
function sendJson(res: Response, status: number, value: unknown): void {
  res
    .status(status)
    .type('application/json')
    .send(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

function badRequest(res: Response, error: z.ZodError, message = 'invalid request body'): void {
  sendJson(res, 400, {
    error: {
      code: 'VALIDATION_FAILED',
      message,
      fields: error.issues.map((i) => ({ name: i.path.join('.') || 'body', message: i.message })),
    },
  });
}

function clockState(clock: VirtualClock): { now: string; nowMs: number; offsetMs: number } {
  const now = clock.now();
  return { now: new Date(now).toISOString(), nowMs: now, offsetMs: clock.offset };
}

/** `GET /sandbox/callbacks?orderid=&state=`: the deliveries of one order, or in one state. */
const callbacksQuerySchema = z.object({
  orderid: z.string().optional(),
  state: z.enum(CALLBACK_DELIVERY_STATES).optional(),
});

const advanceSchema = z
  .object({
    seconds: z
      .number()
      .min(0)
      .max(10 * 365 * 86400),
  })
  .strict();
/** Whole seconds, so that advancing by the same amount returns the clock to real time exactly. */
const rewindSchema = z
  .object({
    seconds: z
      .int()
      .min(1)
      .max(366 * 86400),
  })
  .strict();
const forceSchema = z
  .object({ status: z.enum(['processing', 'approved', 'declined', 'error', 'filtered']) })
  .strict();

export function controlRouter(deps: ControlDeps): express.Router {
  const router = express.Router();
  router.use(express.json({ limit: '16kb' }));

  router.get('/sandbox/clock', (_req, res) => {
    sendJson(res, 200, clockState(deps.clock));
  });

  router.post('/sandbox/clock/advance', async (req, res) => {
    const parsed = advanceSchema.safeParse(req.body);
    if (!parsed.success) {
      badRequest(res, parsed.error);
      return;
    }
    deps.clock.advance(parsed.data.seconds * 1000);
    deps.store.saveClockOffset(deps.clock.offset);
    // Run what became due, and wait for the callback deliveries it started.
    await Promise.all(deps.scheduler.runDue());
    await deps.scheduler.idle();
    sendJson(res, 200, clockState(deps.clock));
  });

  // A gateway that holds nothing yet starts in the past, so that a history can be placed day by day
  // (the storefront simulator's demo history) with /advance. Once anything is dated, the clock only
  // moves forward: a date given out must never be followed by an earlier one.
  router.post('/sandbox/clock/rewind', (req, res) => {
    const parsed = rewindSchema.safeParse(req.body);
    if (!parsed.success) {
      badRequest(res, parsed.error);
      return;
    }
    if (!deps.store.isEmpty || deps.scheduler.size > 0) {
      sendJson(res, 409, {
        error: {
          code: 'CLOCK_IN_USE',
          message: `the clock moves back only on a gateway that holds nothing yet; this one holds ${deps.store.orders.size} orders, ${deps.store.callbacks.size} callbacks and ${deps.scheduler.size} scheduled tasks (reset it first)`,
        },
      });
      return;
    }
    deps.clock.rewind(parsed.data.seconds * 1000);
    deps.store.saveClockOffset(deps.clock.offset);
    sendJson(res, 200, clockState(deps.clock));
  });

  router.get('/sandbox/faults', (_req, res) => {
    sendJson(res, 200, deps.getFaults());
  });

  router.get('/sandbox/faults/delayed', (_req, res) => {
    sendJson(res, 200, { delayed: deps.delayedRequests() });
  });

  router.post('/sandbox/faults', async (req, res) => {
    const parsed = faultsSchema.safeParse(req.body ?? {});
    if (!parsed.success) {
      badRequest(res, parsed.error);
      return;
    }
    await deps.setFaults(parsed.data);
    sendJson(res, 200, parsed.data);
  });

  /** The order the path names, or a 404 already sent. */
  const orderOf = (req: express.Request<{ orderid: string }>, res: Response) => {
    const order = deps.store.orders.get(req.params.orderid);
    if (!order) {
      sendJson(res, 404, {
        error: { code: 'NOT_FOUND', message: `no order ${req.params.orderid}` },
      });
    }
    return order;
  };
  const orderState = (order: Order) => ({
    orderid: order.orderid,
    status: replyStatus(order),
    orderStage: orderStage(order),
  });

  router.get('/sandbox/orders/:orderid', (req, res) => {
    const order = orderOf(req, res);
    if (!order) return;
    const { pageToken: _token, ...visible } = order;
    sendJson(res, 200, {
      ...visible,
      replyStatus: replyStatus(order),
      orderStage: orderStage(order),
    });
  });

  router.post('/sandbox/orders/:orderid/force', (req, res) => {
    const order = orderOf(req, res);
    if (!order) return;
    const parsed = forceSchema.safeParse(req.body);
    if (!parsed.success) {
      badRequest(res, parsed.error);
      return;
    }
    deps.engine.force(order, parsed.data.status);
    sendJson(res, 200, orderState(order));
  });

  // One order's 3-D Secure Method step times out now; the clock (every other order's) stays.
  router.post('/sandbox/orders/:orderid/3ds-method-timeout', (req, res) => {
    const order = orderOf(req, res);
    if (!order) return;
    try {
      deps.engine.timeOutMethod(order);
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      sendJson(res, error.httpStatus, { error: { code: error.code, message: error.message } });
      return;
    }
    // The sale completes after the usual processing delay, then its callback goes out.
    sendJson(res, 200, orderState(order));
  });

  router.get('/sandbox/callbacks', (req, res) => {
    const parsed = callbacksQuerySchema.safeParse(req.query);
    if (!parsed.success) {
      badRequest(res, parsed.error, 'invalid query');
      return;
    }
    const { orderid, state } = parsed.data;
    const deliveries = [...deps.store.callbacks.values()].filter(
      (d) =>
        (orderid === undefined || d.orderid === orderid) &&
        (state === undefined || d.state === state),
    );
    sendJson(res, 200, { callbacks: deliveries });
  });

  router.get('/sandbox/recurring-payments/:id', (req, res) => {
    const rp = deps.store.recurring.get(req.params.id);
    if (!rp) {
      sendJson(res, 404, {
        error: { code: 'NOT_FOUND', message: `no recurring payment ${req.params.id}` },
      });
      return;
    }
    sendJson(res, 200, rp);
  });

  router.post('/sandbox/reset', (_req, res) => {
    deps.reset();
    sendJson(res, 200, { reset: true });
  });

  return router;
}
