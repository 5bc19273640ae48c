// Repeated header lines and oversized requests, sent over node:http so that repeats stay separate
// lines (fetch merges them): two Idempotency-Keys, two session cookies (a planted one beside the
// real one), two Origins or X-Requested-With, two Content-Types or Content-Lengths, on every route
// of the table; headers and URLs over Node's 16 KiB limit; bodies over the 100 kB limit sent
// chunked. Never a 5xx; the ambiguous never picks a side; a refusal writes nothing and is audited.
import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES } from '@paydesk/shared/api';
import {
  auditRowsFor,
  businessState,
  COOKIE,
  fillPath,
  isStateChanging,
  PUBLIC_ORIGIN,
  routes,
  sendRaw,
  startBff,
  type Account,
  type HostileBff,
  type Reply,
  type RouteInfo,
} from './support/bff.js';
import { describeInput, Findings, FUZZ_RUNS, fuzzParams } from './support/arbitraries.js';
import { envelopeProblems, leaksOf } from './support/checks.js';
import { DB_VARIANTS } from './support/databases.js';

const DUPLICATES = [
  'idempotency-key',
  'cookie: another user',
  'cookie: the same',
  'cookie: one line, two sessions',
  'origin',
  'x-requested-with',
  'content-type',
  'content-length',
  'x-request-id',
  'accept',
] as const;
type Duplicate = (typeof DUPLICATES)[number];

function codeOf(reply: Reply): string | undefined {
  return (reply.json as { error?: { code?: string } } | null)?.error?.code;
}

/** What a raw socket gets back for `head` (request line and headers as written): the status line. */
function rawStatusLine(url: string, head: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let got = '';
    socket.on('data', (chunk: Buffer) => {
      got += chunk.toString('latin1');
    });
    socket.on('error', () => {
      // The parser may reset the connection while the rest is still being written.
    });
    socket.on('close', () => {
      resolve(got.split('\r\n')[0] ?? '');
    });
    socket.on('connect', () => {
      socket.write(head, (err) => {
        if (err !== undefined && err !== null) reject(err);
      });
    });
    socket.setTimeout(5_000, () => socket.destroy());
  });
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`repeated headers and oversized requests (${variant.name})`, () => {
    let bff: HostileBff;
    let other: Account;
    const all = routes();
    const protectedRoutes = all.filter((r) => r.access !== 'public');

    beforeAll(async () => {
      bff = await startBff(variant);
      other = await bff.account(['admin', 'ops', 'finance']);
    });
    afterAll(async () => {
      await bff.close();
    });

    /** A path with a well-formed id that names nothing (what answers is the request's standing). */
    const pathOf = (route: RouteInfo) =>
      fillPath(route, Object.fromEntries(route.params.map((p) => [p, randomUUID()])));

    it('when a request carries two different session cookies (two Cookie lines or one), then 401 on every authenticated route, audited when state-changing, nothing written; the same cookie twice is one session', async () => {
      const user = await bff.account([...ROLES]);
      const mine = `${COOKIE}=${user.client.cookie ?? ''}`;
      const theirs = `${COOKIE}=${other.client.cookie ?? ''}`;
      const forms: [string, [string, string][]][] = [
        [
          'two lines, theirs first',
          [
            ['Cookie', theirs],
            ['Cookie', mine],
          ],
        ],
        ['one line, mine first', [['Cookie', `${mine}; ${theirs}`]]],
      ];
      const before = await businessState(bff.db);
      for (const route of protectedRoutes) {
        for (const [label, cookies] of forms) {
          const reply = await sendRaw(
            bff,
            route.method,
            pathOf(route),
            [
              ['X-Requested-With', 'paydesk'],
              ['Origin', PUBLIC_ORIGIN],
              ['Content-Type', 'application/json'],
              ['Idempotency-Key', randomUUID()],
              ...cookies,
            ],
            isStateChanging(route) ? '{}' : undefined,
          );
          const what = `${route.key} (${label}): ${reply.status} ${reply.text.slice(0, 160)}`;
          expect(reply.status, what).toBe(401);
          expect(codeOf(reply), what).toBe('UNAUTHENTICATED');
          expect(envelopeProblems(reply), what).toEqual([]);
          if (isStateChanging(route))
            expect((await auditRowsFor(bff.db, reply.requestId)).length, what).toBe(1);
        }
      }
      expect(await businessState(bff.db)).toEqual(before);
      const same = await sendRaw(bff, 'GET', '/api/session', [
        ['Cookie', mine],
        ['Cookie', mine],
      ]);
      expect(same.status, same.text).toBe(200);
      expect((same.json as { user: { id: string } }).user.id).toBe(user.id);
    });

    it('when generated requests repeat header lines on random routes, then never a 5xx; repeated CSRF headers are 403, two sessions 401; every other refusal has the envelope, is audited and writes nothing', async () => {
      const findings = new Findings();
      const input = fc.record({
        route: fc.nat(all.length - 1),
        duplicates: fc.subarray([...DUPLICATES], { minLength: 1, maxLength: 3 }),
      });
      await fc.assert(
        fc.asyncProperty(input, async ({ route: index, duplicates }) => {
          const route = all[index];
          if (route === undefined) return;
          const has = (d: Duplicate) => duplicates.includes(d);
          const user = await bff.account([...ROLES]);
          const mine = `${COOKIE}=${user.client.cookie ?? ''}`;
          const body = isStateChanging(route) ? '{}' : undefined;
          const lines: [string, string][] = [
            ['X-Requested-With', 'paydesk'],
            ['Origin', PUBLIC_ORIGIN],
            ['Content-Type', 'application/json'],
            ['Idempotency-Key', randomUUID()],
            ['Accept', 'application/json'],
            ['X-Request-Id', randomUUID()],
          ];
          if (has('cookie: one line, two sessions'))
            lines.push(['Cookie', `${mine}; ${COOKIE}=${other.client.cookie ?? ''}`]);
          else lines.push(['Cookie', mine]);
          if (has('cookie: another user'))
            lines.push(['Cookie', `${COOKIE}=${other.client.cookie ?? ''}`]);
          if (has('cookie: the same')) lines.push(['Cookie', mine]);
          if (has('idempotency-key')) lines.push(['Idempotency-Key', randomUUID()]);
          if (has('origin')) lines.push(['Origin', 'https://evil.example']);
          if (has('x-requested-with')) lines.push(['X-Requested-With', 'paydesk']);
          if (has('content-type')) lines.push(['Content-Type', 'text/plain']);
          if (has('x-request-id')) lines.push(['X-Request-Id', randomUUID()]);
          if (has('accept')) lines.push(['Accept', 'text/event-stream']);
          if (has('content-length') && body !== undefined)
            lines.push(['Content-Length', String(body.length)], ['Content-Length', '999']);
          const before = await businessState(bff.db);
          const reply = await sendRaw(bff, route.method, pathOf(route), lines, body);
          const example = `${reply.status} ${reply.text.slice(0, 160)} ← ${describeInput({ route: route.key, duplicates })}`;
          if (reply.status >= 500) findings.add('a 5xx', example);
          // Node's HTTP parser refuses conflicting Content-Lengths before the app sees the request.
          if (reply.status === 400 && reply.text === '') {
            if (!(has('content-length') && body !== undefined))
              findings.add('a bare 400 from the parser', example);
            return;
          }
          const twoSessions = has('cookie: another user') || has('cookie: one line, two sessions');
          const csrfBroken = isStateChanging(route) && (has('origin') || has('x-requested-with'));
          if (csrfBroken && codeOf(reply) !== 'CSRF_REJECTED')
            findings.add('repeated CSRF headers not refused with CSRF_REJECTED', example);
          else if (!csrfBroken && twoSessions && route.access !== 'public' && reply.status !== 401)
            findings.add('two session cookies not refused with 401', example);
          if (reply.status < 400) return;
          for (const [kind] of envelopeProblems(reply)) findings.add(kind, example);
          if (JSON.stringify(await businessState(bff.db)) !== JSON.stringify(before))
            findings.add('a refused request changed business state', example);
          const quiet = route.method === 'GET' && reply.status === 401;
          if (!quiet && (await auditRowsFor(bff.db, reply.requestId)).length === 0)
            findings.add('a refusal without an audit row', example);
        }),
        { ...fuzzParams(), numRuns: FUZZ_RUNS * 2 },
      );
      expect(findings.count, findings.report('repeated header lines')).toBe(0);
    });

    it('when the request line or headers exceed 16 KiB (one huge header, thousands of headers, a huge URL), then the HTTP parser answers 431 before the app, nothing is written or audited, and the BFF keeps serving', async () => {
      const host = new URL(bff.url).host;
      const before = await businessState(bff.db);
      const audited = (await bff.db.k.selectFrom('audit_log').select('seq').execute()).length;
      const heads = [
        `GET /api/session HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'h'.repeat(20_000)}\r\n\r\n`,
        `GET /api/session HTTP/1.1\r\nHost: ${host}\r\n${Array.from({ length: 3_000 }, (_, i) => `X-H${i}: v\r\n`).join('')}\r\n`,
        `GET /api/transactions?q=${'y'.repeat(70_000)} HTTP/1.1\r\nHost: ${host}\r\n\r\n`,
        `POST /api/session HTTP/1.1\r\nHost: ${host}\r\nCookie: ${COOKIE}=${'c'.repeat(20_000)}\r\nContent-Length: 2\r\n\r\n{}`,
      ];
      for (const head of heads)
        expect(await rawStatusLine(bff.url, head)).toMatch(/^HTTP\/1\.1 431 /);
      expect(await businessState(bff.db)).toEqual(before);
      expect((await bff.db.k.selectFrom('audit_log').select('seq').execute()).length).toBe(audited);
      expect((await other.client.send('GET', '/api/session')).status).toBe(200);
    });

    it('when a state-changing body of 2 MB arrives (chunked where the method allows), then 413 PAYLOAD_TOO_LARGE with the envelope, audited, nothing written', async () => {
      const user = await bff.account([...ROLES]);
      const before = await businessState(bff.db);
      for (const route of all.filter(isStateChanging)) {
        const reply = await sendRaw(
          bff,
          route.method,
          pathOf(route),
          [
            ['X-Requested-With', 'paydesk'],
            ['Origin', PUBLIC_ORIGIN],
            ['Content-Type', 'application/json'],
            ['Idempotency-Key', randomUUID()],
            ['Cookie', `${COOKIE}=${user.client.cookie ?? ''}`],
          ],
          `{"orderDesc":"${'x'.repeat(2_000_000)}"}`,
        );
        expect(reply.status, `${route.key}: ${reply.text}`).toBe(413);
        expect(envelopeProblems(reply)).toEqual([]);
        const rows = await auditRowsFor(bff.db, reply.requestId);
        expect(rows.map((r) => [r.action, r.outcome, r.error_code])).toEqual([
          [route.action, 'refused', 'PAYLOAD_TOO_LARGE'],
        ]);
        // The session survived (DELETE /api/session or a password change could end it otherwise).
        expect((await user.client.send('GET', '/api/session')).status, route.key).toBe(200);
      }
      expect(await businessState(bff.db)).toEqual(before);
    });

    it('when the suite is over, then no reply, log line (BFF or sandbox) or audit row holds a card number or a secret', async () => {
      expect(bff.captured.length).toBeGreaterThan(10);
      const leaks = await leaksOf(bff);
      expect(leaks, JSON.stringify(leaks.slice(0, 10), null, 2)).toEqual([]);
    });
  });
}
