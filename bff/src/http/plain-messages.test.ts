// zod's fallback messages in the API's words (shared/src/api/plain-messages.ts), as a client of
// the HTTP API reads them: the field, the rule, and what to send instead.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AMOUNT_AS_TEXT_MESSAGE, type ErrorEnvelope } from '@paydesk/shared/api';
import {
  DB_VARIANTS,
  startApp,
  type Reply,
  type TestApp,
  type TestClient,
} from '../test-support/harness.js';

const variant = DB_VARIANTS[0];
if (variant === undefined) throw new Error('no database variant');

const fieldsOf = (reply: Reply) => {
  expect(reply.status).toBe(400);
  return (reply.json as ErrorEnvelope).error.details?.fields;
};

describe.skipIf(variant.skip)(`plain field messages over HTTP (${variant.name})`, () => {
  let t: TestApp;
  let admin: TestClient;
  let finance: TestClient;
  let auditor: TestClient;
  beforeAll(async () => {
    t = await startApp(variant);
    admin = await t.userWithRoles(['admin']);
    finance = await t.userWithRoles(['finance']);
    auditor = await t.userWithRoles(['auditor']);
  });
  afterAll(async () => {
    await t.close();
  });

  it('when a field is missing or of the wrong JSON kind, then 400 says "is required" or what it must be, not zod’s words', async () => {
    const reply = await admin.post('/api/users', { email: 5, roles: 'finance' });
    const fields = fieldsOf(reply) ?? [];
    const byPath = new Map(fields.map((f) => [f.path, f.message]));
    expect(byPath.get('email')).toBe('must be text (a JSON string), not a number');
    expect(byPath.get('name')).toBe('is required');
    // One message for a value of the wrong kind: not also the list's size rule read as text's.
    expect(fields.filter((f) => f.path === 'roles')).toEqual([
      { path: 'roles', rule: 'invalid_type', message: 'must be a list (a JSON array), not text' },
    ]);
    for (const f of fields) expect(f.message).not.toMatch(/Invalid input|expected \w+, received/);
  });

  it('when an unknown field or parameter is named by a card number, then the reply masks it', async () => {
    const body = await admin.post('/api/users', { '4111 1111 1111 1111': 1 });
    const query = await auditor.get('/api/audit?4111.1111.1111.1111=1');
    for (const reply of [body, query]) {
      expect(reply.status).toBe(400);
      expect(reply.text).not.toMatch(/4111[ .]?1111[ .]?1111/);
    }
    expect(fieldsOf(body)?.map((f) => f.path)).toContain('411111…1111');
    expect(fieldsOf(query)?.map((f) => f.path)).toEqual(['query.411111…1111']);
  });

  it('when a query parameter is not a number, then 400 names it and says what it must be', async () => {
    const reply = await auditor.get('/api/audit?page=abc');
    expect(fieldsOf(reply)).toEqual([
      {
        path: 'query.page',
        rule: 'invalid_type',
        message: 'must be a whole number from 1 to 1000000',
      },
    ]);
  });

  it('when an amount is a JSON number, then 400 says money is sent as decimal text', async () => {
    const reply = await finance.request(
      'POST',
      `/api/transactions/${randomUUID()}/capture`,
      { amount: 12.5 },
      { 'Idempotency-Key': randomUUID() },
    );
    expect(fieldsOf(reply)).toEqual([
      { path: 'amount', rule: 'invalid_type', message: AMOUNT_AS_TEXT_MESSAGE },
    ]);
  });
});
