// Assertions every hostile suite shares: the BFF's error envelope, and secrets nowhere.
import { ErrorEnvelopeSchema } from '@paydesk/shared/api';
import { allAuditText, type HostileBff, type Reply } from './bff.js';
import { PAN } from './arbitraries.js';

/**
 * What is wrong with a 4xx reply of the BFF: it must be `{ error: { code, message, details?,
 * requestId } }` with the X-Request-Id as requestId, and a 400 must name at least one field
 * (`details.fields[] = { path, rule, message }`). Returns `[kind, detail]` pairs; none = fine.
 */
export function envelopeProblems(reply: Reply): [string, string][] {
  const parsed = ErrorEnvelopeSchema.safeParse(reply.json);
  const text = reply.text.slice(0, 200);
  if (!parsed.success) return [['a 4xx without the error envelope', `${reply.status} ${text}`]];
  const { error } = parsed.data;
  const problems: [string, string][] = [];
  if (error.message.length === 0) problems.push(['an error without a message', text]);
  if (error.requestId !== reply.requestId)
    problems.push(['requestId differs from the X-Request-Id header', text]);
  if (reply.status === 400) {
    const fields = error.details?.fields ?? [];
    if (fields.length === 0)
      problems.push([`a 400 ${error.code} "${error.message}" naming no field`, text]);
    if (fields.some((f) => f.path === '' || f.rule === '' || f.message === ''))
      problems.push(['a field error without path, rule or message', text]);
  }
  return problems;
}

export interface Leak {
  secret: string;
  where: string;
  excerpt: string;
}

/** Every occurrence of any secret in any of the texts (each text labelled by `where`). */
export function findLeaks(
  texts: { where: string; text: string }[],
  secrets: readonly string[],
): Leak[] {
  const leaks: Leak[] = [];
  const seen = new Set<string>();
  const distinct = [...new Set(secrets.filter((s) => s.length >= 8))];
  for (const { where, text } of texts) {
    for (const secret of distinct) {
      const at = text.indexOf(secret);
      if (at < 0) continue;
      // One entry per secret, place and context (the same log line shape repeats a lot).
      const key = `${secret}|${where}|${text.slice(Math.max(0, at - 40), at)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      leaks.push({
        secret: `${secret.slice(0, 6)}…(${secret.length} chars)`,
        where,
        excerpt: `${text.slice(Math.max(0, at - 100), at)}<SECRET>`,
      });
    }
  }
  return leaks;
}

/**
 * Every leak of a secret of the suite's BFF (its configuration's, every account's password and
 * session token) or of the test card number, in any reply it gave, any log line of it or the
 * sandbox, or any audit row.
 */
export async function leaksOf(bff: HostileBff): Promise<Leak[]> {
  const texts = [
    ...bff.captured.map((c) => ({
      where: `reply to ${c.request.slice(0, 120)}`,
      text: c.text + JSON.stringify([...c.headers].filter(([k]) => k !== 'set-cookie')),
    })),
    ...bff.logs.map((text) => ({ where: 'BFF log', text })),
    ...(await allAuditText(bff.db)).map((text) => ({ where: 'audit row', text })),
    ...bff.gateway.logs.map((text) => ({ where: 'sandbox log', text })),
  ];
  return findLeaks(texts, [...bff.secrets, PAN]);
}
