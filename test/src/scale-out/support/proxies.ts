// Two small HTTP proxies on loopback, as a deployment would put them around the BFF instances:
// a round-robin load balancer in front of them (no sticky sessions), and, between each instance
// and the gateway, a recorder that notes every gateway request with the instance that sent it.
import {
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => {
    server.listen(0, '127.0.0.1', done);
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((done) => {
    server.close(() => {
      done();
    });
  });
}

/** Forwards `req` (with `body`, if already read) to `target`; a dropped reply is dropped here too. */
function forward(
  req: IncomingMessage,
  res: ServerResponse,
  target: string,
  body: Buffer | null,
  onEndOnce: (status: number | null) => void,
): void {
  let ended = false;
  const onEnd = (status: number | null) => {
    if (ended) return;
    ended = true;
    onEndOnce(status);
  };
  const url = new URL(req.url ?? '/', target);
  const upstream = request(url, { method: req.method, headers: req.headers }, (reply) => {
    res.writeHead(reply.statusCode ?? 502, reply.headers);
    reply.pipe(res);
    reply.on('end', () => {
      onEnd(reply.statusCode ?? null);
    });
    reply.on('error', () => {
      onEnd(null);
      res.destroy();
    });
  });
  upstream.on('error', () => {
    onEnd(null);
    // The gateway closed the connection without a reply: so does the proxy.
    res.destroy();
  });
  res.on('close', () => {
    // A client that went away (an event stream closed) releases the upstream connection.
    if (!res.writableFinished) upstream.destroy();
  });
  if (body === null) req.pipe(upstream);
  else upstream.end(body);
}

export interface RoundRobin {
  origin: string;
  targets: string[];
  /** while true, the gateway's callbacks are answered 503 (the gateway retries them later) */
  refuseCallbacks: boolean;
  /** how many requests each target received */
  served: Map<string, number>;
  close(): Promise<void>;
}

export async function startRoundRobin(): Promise<RoundRobin> {
  let next = 0;
  const state: Omit<RoundRobin, 'origin' | 'close'> = {
    targets: [],
    refuseCallbacks: false,
    served: new Map(),
  };
  const server = createServer((req, res) => {
    if (state.refuseCallbacks && (req.url ?? '').startsWith('/gateway/callback')) {
      res.writeHead(503).end();
      return;
    }
    const target = state.targets[next % state.targets.length];
    next += 1;
    if (target === undefined) {
      res.writeHead(502).end();
      return;
    }
    state.served.set(target, (state.served.get(target) ?? 0) + 1);
    forward(req, res, target, null, () => undefined);
  });
  const origin = await listen(server);
  return Object.assign(state, { origin, close: () => close(server) });
}

export interface GatewayRequest {
  instance: string;
  /** the operation path below /paynet, e.g. `/api/v2/status/1001` */
  path: string;
  fields: URLSearchParams;
  start: number;
  end: number;
  /** null: no reply (dropped) */
  status: number | null;
}

export interface Recorder {
  /** the GATEWAY_BASE_URL to give the instance */
  baseUrl: string;
  close(): Promise<void>;
}

/** A pass-through to the gateway at `gatewayOrigin` that records every POST into `log`. */
export async function startRecorder(
  instance: string,
  gatewayOrigin: string,
  log: GatewayRequest[],
): Promise<Recorder> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const start = performance.now();
      forward(req, res, gatewayOrigin, body, (status) => {
        if (req.method !== 'POST') return;
        log.push({
          instance,
          path: (req.url ?? '').replace(/^\/paynet/, '').split('?')[0] ?? '',
          fields: new URLSearchParams(body.toString('utf8')),
          start,
          end: performance.now(),
          status,
        });
      });
    });
  });
  const origin = await listen(server);
  return { baseUrl: `${origin}/paynet`, close: () => close(server) };
}
