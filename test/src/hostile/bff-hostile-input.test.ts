// Hostile input against every route of the BFF's route table (ROUTES, so routes added later are
// covered without editing this file): generated bodies, query strings, headers and path ids, sent
// by a signed-in user of a role the route allows, with the SPA's CSRF headers, so that input
// handling (not auth) is what answers. Every reply is a 4xx with the error envelope (fields named on
// a 400) or the route's success; never a 5xx; a refusal writes no business state and is audited.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allAuditText,
  allowedRoles,
  auditRowsFor,
  businessState,
  fillPath,
  jsonText,
  knownCardRefs,
  knownIds,
  routes,
  startBff,
  tableOfParam,
  type Client,
  type HostileBff,
  type RouteInfo,
} from './support/bff.js';
import {
  describeInput,
  Findings,
  fuzzParams,
  hostileBody,
  hostileHeaders,
  hostileQuery,
  paramChoice,
  type HostileBody,
  type ParamChoice,
} from './support/arbitraries.js';
import { envelopeProblems, findLeaks } from './support/checks.js';
import { DB_VARIANTS } from './support/databases.js';
import { seedHeldPayouts, seedOrder } from './support/seed.js';

interface Input {
  params: ParamChoice[];
  query: string;
  body: HostileBody;
  headers: [string, string][];
}

function inputFor(route: RouteInfo): fc.Arbitrary<Input> {
  return fc.record({
    params: fc.array(paramChoice, {
      minLength: route.params.length,
      maxLength: route.params.length,
    }),
    query: hostileQuery,
    // fetch cannot send a body with GET.
    body: route.method === 'GET' ? fc.constant<HostileBody>({ kind: 'none' }) : hostileBody,
    headers: hostileHeaders,
  });
}

async function resolveParams(
  bff: HostileBff,
  route: RouteInfo,
  choices: ParamChoice[],
): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const [i, name] of route.params.entries()) {
    const choice = choices[i];
    if (choice === undefined) continue;
    if (choice.kind === 'hostile') {
      values[name] = choice.value;
      continue;
    }
    const ids =
      name === 'cardRefId'
        ? await knownCardRefs(bff.db)
        : await knownIds(bff.db, tableOfParam(route, name));
    values[name] = ids.length === 0 ? `no-such-${name}` : (ids[choice.index % ids.length] ?? '');
  }
  return values;
}

async function clientFor(bff: HostileBff, route: RouteInfo): Promise<Client> {
  const roles = allowedRoles(route);
  return roles === null ? bff.anonymous() : (await bff.account(roles)).client;
}

for (const variant of DB_VARIANTS) {
  describe.skipIf(variant.skip)(`BFF hostile input on every route (${variant.name})`, () => {
    let bff: HostileBff;
    beforeAll(async () => {
      bff = await startBff(variant);
      // Rows for the known-id choices to name: an order with a card reference, a held payout and
      // a held payout-form link (refusals on real rows must write nothing either).
      const [support, finance, ops] = [
        await bff.account(['support']),
        await bff.account(['finance']),
        await bff.account(['ops']),
      ];
      await seedOrder(bff, support, finance);
      await seedHeldPayouts(ops);
    });
    afterAll(async () => {
      await bff.close();
    });

    const all = routes();

    it('when the route table is read, then it has routes to fuzz', () => {
      expect(all.length).toBeGreaterThan(10);
    });

    for (const route of all) {
      it(`when ${route.key} gets generated hostile bodies, queries, headers and ids from an allowed role, then 4xx with the envelope naming the field or its success, never 5xx, nothing written and the refusal audited`, async () => {
        const findings = new Findings();
        let refusals = 0;
        await fc.assert(
          fc.asyncProperty(inputFor(route), async (input) => {
            const client = await clientFor(bff, route);
            const params = await resolveParams(bff, route, input.params);
            const path = fillPath(route, params) + (input.query === '' ? '' : `?${input.query}`);
            const before = await businessState(bff.db);
            const reply = await client.send(route.method, path, {
              headers: input.headers,
              ...(input.body.kind === 'none'
                ? {}
                : input.body.kind === 'json' && input.body.contentType === 'application/json'
                  ? { body: { json: input.body.value } }
                  : {
                      body: {
                        raw:
                          input.body.kind === 'json' ? jsonText(input.body.value) : input.body.text,
                        contentType: input.body.contentType,
                      },
                    }),
            });
            const example = `${reply.status} ${reply.text.slice(0, 160)} ← ${describeInput({ path, ...input })}`;
            if (reply.status >= 500) findings.add('a 5xx', example);
            if (reply.status < 200 || (reply.status >= 300 && reply.status < 400))
              findings.add('neither 2xx nor 4xx', example);
            if (reply.status < 400) return;
            refusals += 1;
            // Node's HTTP parser refuses headers (URL included) over 16 KiB before the app sees the
            // request: no envelope, no audit row possible, nothing written.
            if (reply.status === 431 && reply.text === '') return;
            for (const [kind] of envelopeProblems(reply)) findings.add(kind, example);
            const after = await businessState(bff.db);
            if (JSON.stringify(after) !== JSON.stringify(before))
              findings.add('a refused request changed business state', example);
            // The runner audits every refusal but a GET's 401 (README: reads audit only their refusals);
            // a generated second session cookie (`paydesk_session=forged`) makes the session ambiguous: 401.
            const audited = await auditRowsFor(bff.db, reply.requestId);
            const quietProbe = route.method === 'GET' && reply.status === 401;
            if (audited.length === 0 && !quietProbe)
              findings.add('a refusal without an audit row', example);
            else if (
              audited.some((row) => row.outcome === 'success' || row.action !== route.action)
            )
              findings.add('a refusal audited as something else', example);
          }),
          fuzzParams(),
        );
        expect(findings.count, findings.report(route.key)).toBe(0);
        expect(
          refusals,
          'no generated input was refused: the generators are too tame',
        ).toBeGreaterThan(0);
      });
    }

    // The unreadable bodies the fuzz finds, one by one on every state-changing route: a refusal like
    // any other (the README: one audit row per attempted action, validation refusals included).
    const unreadable: [string, string, string | null, [string, string][]][] = [
      ['malformed JSON', '{"a":', 'application/json', []],
      ['an unsupported charset', '{}', 'application/json; charset=utf-16', []],
      [
        'an unsupported content encoding',
        '{}',
        'application/json',
        [['Content-Encoding', 'x-unknown']],
      ],
      ['a body over the limit', `{"name":"${'x'.repeat(120_000)}"}`, 'application/json', []],
    ];
    for (const route of all.filter((r) => r.method !== 'GET')) {
      for (const [label, raw, contentType, headers] of unreadable) {
        it(`when ${route.key} gets ${label}, then a 4xx naming the body, audited as a refusal of ${route.action}`, async () => {
          const client = await clientFor(bff, route);
          const params = await resolveParams(
            bff,
            route,
            route.params.map(() => ({ kind: 'known', index: 0 })),
          );
          const reply = await client.send(route.method, fillPath(route, params), {
            body: { raw, contentType },
            headers,
          });
          expect(reply.status, reply.text).toBeGreaterThanOrEqual(400);
          expect(reply.status, reply.text).toBeLessThan(500);
          expect(envelopeProblems(reply)).toEqual([]);
          const rows = await auditRowsFor(bff.db, reply.requestId);
          expect(
            rows.map((r) => [r.action, r.outcome]),
            'the refusal has no audit row',
          ).toEqual([[route.action, 'refused']]);
        });
      }
    }

    it('when the fuzz runs are over, then no reply, log line or audit row holds a card number or a secret', async () => {
      const texts = [
        ...bff.captured.map((c) => ({
          where: `reply to ${c.request.slice(0, 120)}`,
          text: c.text + JSON.stringify([...c.headers].filter(([k]) => k !== 'set-cookie')),
        })),
        ...bff.logs.map((text) => ({ where: 'BFF log', text })),
        ...(await allAuditText(bff.db)).map((text) => ({ where: 'audit row', text })),
        ...bff.gateway.logs.map((text) => ({ where: 'sandbox log', text })),
      ];
      expect(bff.captured.length).toBeGreaterThan(100);
      const leaks = findLeaks(texts, [...bff.secrets, '4111111111111111']);
      expect(leaks, JSON.stringify(leaks.slice(0, 10), null, 2)).toEqual([]);
    });
  });
}
