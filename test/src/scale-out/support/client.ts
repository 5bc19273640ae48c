// Staff as the SPA talks to the BFF: a session cookie, the CSRF header, the public Origin, JSON;
// pointed at the load balancer or at one instance directly. And a screen's live-update stream.
import { get, type IncomingMessage } from 'node:http';
import {
  CSRF_HEADER,
  CSRF_HEADER_VALUE,
  IDEMPOTENCY_KEY_HEADER,
  LiveEventSchema,
  type LiveEvent,
} from '@paydesk/shared/api';

export const COOKIE = 'paydesk_session';

export interface Reply {
  status: number;
  headers: Headers;
  json: unknown;
  text: string;
}

export class Staff {
  cookie: string | undefined;

  constructor(
    readonly email: string,
    readonly password: string,
    /** PUBLIC_ORIGIN: what a browser sends as Origin, whichever instance answers */
    readonly publicOrigin: string,
  ) {}

  async send(
    base: string,
    method: string,
    path: string,
    body?: unknown,
    idempotencyKey?: string,
  ): Promise<Reply> {
    const headers: Record<string, string> = {
      [CSRF_HEADER]: CSRF_HEADER_VALUE,
      Origin: this.publicOrigin,
      Accept: 'application/json',
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (this.cookie !== undefined) headers.Cookie = `${COOKIE}=${this.cookie}`;
    if (idempotencyKey !== undefined) headers[IDEMPOTENCY_KEY_HEADER] = idempotencyKey;
    const res = await fetch(base + path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      if (pair.startsWith(`${COOKIE}=`)) {
        const value = pair.slice(COOKIE.length + 1);
        this.cookie = value === '' ? undefined : value;
      }
    }
    const text = await res.text();
    let json: unknown = null;
    if ((res.headers.get('content-type') ?? '').startsWith('application/json') && text !== '')
      json = JSON.parse(text);
    return { status: res.status, headers: res.headers, json, text };
  }

  async signIn(base: string): Promise<void> {
    const res = await this.send(base, 'POST', '/api/session', {
      email: this.email,
      password: this.password,
    });
    if (res.status !== 200) throw new Error(`sign-in as ${this.email}: ${res.status} ${res.text}`);
  }
}

/** An open `GET /api/events` stream on one instance: every event, with its SSE name. */
export interface EventStream {
  events: { name: string; event: LiveEvent }[];
  close(): void;
}

export async function openEvents(base: string, staff: Staff): Promise<EventStream> {
  const res = await new Promise<IncomingMessage>((done, reject) => {
    get(
      `${base}/api/events`,
      { headers: { Cookie: `${COOKIE}=${staff.cookie ?? ''}`, Accept: 'text/event-stream' } },
      done,
    ).on('error', reject);
  });
  if (res.statusCode !== 200) throw new Error(`GET /api/events: ${String(res.statusCode)}`);
  res.setEncoding('utf8');
  const events: EventStream['events'] = [];
  let buffer = '';
  res.on('data', (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const name = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (name !== undefined && data !== undefined)
        events.push({ name, event: LiveEventSchema.parse(JSON.parse(data)) });
    }
  });
  res.on('error', () => undefined);
  return {
    events,
    close: () => {
      res.destroy();
    },
  };
}
