// What audit rows' targets name, in the words of the screens. A row stores its target as
// `<kind>:<id>` and its hash covers that text: the evidence. The list resolves the targets of its
// page when it is read (one query per kind, never one per row) and the filter accepts what the
// screens show; nothing here writes to or changes a row.
import type { Kysely } from 'kysely';
import type { AuditListItem, AuditRow, AuditTargetRef } from '@paydesk/shared/api';
import type { Db } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import type { PaymentsTables } from '../payments/migration.js';
import { gatewayOrderId } from '../payments/rebills.js';
import { CARD_REF_ID } from '../payouts/card-info.js';
import type { PayoutsTables } from '../payouts/migration.js';
import type { ViewsTables } from '../views/migration.js';
import { maskPans } from './redact.js';

type TargetsDb = Kysely<Database & PaymentsTables & PayoutsTables & ViewsTables>;

/** The kinds a target names and the SQL tables they live in (`account` is a sign-in's e-mail). */
const KINDS = ['transaction', 'payout', 'link', 'subscription', 'user', 'account', 'view'] as const;
type StoredKind = (typeof KINDS)[number];

/** A filter's text names at most this many records of one kind (a client_orderid may repeat). */
const MATCHES_PER_KIND = 100;

function targetsDb(db: Db): TargetsDb {
  return db.k;
}

/** `<kind>:<id>` of a kind resolved here, else null. */
export function parseTarget(target: string | null): { kind: StoredKind; id: string } | null {
  if (target === null) return null;
  const colon = target.indexOf(':');
  if (colon <= 0 || colon === target.length - 1) return null;
  const kind = target.slice(0, colon);
  const found = KINDS.find((k) => k === kind);
  return found === undefined ? null : { kind: found, id: target.slice(colon + 1) };
}

/** A label from stored text: never a card number, even in a merchant's client_orderid. */
const label = (text: string) => maskPans(text);

/** The gateway's orderid of a transaction, its client_orderid while that is a placeholder. */
const transactionLabel = (r: { orderid: string; client_orderid: string }) =>
  label(gatewayOrderId(r.orderid) ?? r.client_orderid);

/** A payout's or payment link's gateway orderid, its client_orderid until the gateway named it. */
const orderLabel = (r: { orderid: string | null; client_orderid: string }) =>
  label(r.orderid ?? r.client_orderid);

/**
 * Each row with `targetRef`: what its target names (transaction, payout, payment link,
 * subscription, user or saved view), looked up with one query per kind for all of `rows`; null when
 * the row has none, of a kind not resolved, or naming a record that is gone.
 */
export async function resolveTargets(db: Db, rows: readonly AuditRow[]): Promise<AuditListItem[]> {
  const ids = new Map<StoredKind, Set<string>>(KINDS.map((k) => [k, new Set<string>()]));
  for (const row of rows) {
    const t = parseTarget(row.target);
    if (t !== null) ids.get(t.kind)?.add(t.id);
  }
  const wanted = (kind: StoredKind): string[] => [...(ids.get(kind) ?? [])];
  const k = targetsDb(db);
  const found = new Map<string, AuditTargetRef>();
  const lookups: Promise<void>[] = [];
  const lookup = <R>(
    kind: StoredKind,
    read: (keys: string[]) => Promise<R[]>,
    refs: (row: R) => [string, AuditTargetRef][],
  ) => {
    const keys = wanted(kind);
    if (keys.length === 0) return;
    lookups.push(
      read(keys).then((got) => {
        for (const r of got) for (const [target, ref] of refs(r)) found.set(target, ref);
      }),
    );
  };
  lookup(
    'transaction',
    (keys) =>
      k
        .selectFrom('transactions')
        .select(['id', 'orderid', 'client_orderid'])
        .where('id', 'in', keys)
        .execute(),
    (r) => [[`transaction:${r.id}`, { kind: 'transaction', id: r.id, label: transactionLabel(r) }]],
  );
  lookup(
    'payout',
    (keys) =>
      k
        .selectFrom('payouts')
        .select(['id', 'orderid', 'client_orderid'])
        .where('id', 'in', keys)
        .execute(),
    (r) => [[`payout:${r.id}`, { kind: 'payout', id: r.id, label: orderLabel(r) }]],
  );
  lookup(
    'link',
    (keys) =>
      k
        .selectFrom('payment_links')
        .select(['id', 'orderid', 'client_orderid'])
        .where('id', 'in', keys)
        .execute(),
    (r) => [[`link:${r.id}`, { kind: 'link', id: r.id, label: orderLabel(r) }]],
  );
  lookup(
    'subscription',
    (keys) =>
      k
        .selectFrom('subscriptions')
        .select(['id', 'recurring_payment_id', 'client_orderid'])
        .where('id', 'in', keys)
        .execute(),
    (r) => [
      [
        `subscription:${r.id}`,
        {
          kind: 'subscription',
          id: r.id,
          label: label(r.recurring_payment_id ?? r.client_orderid),
        },
      ],
    ],
  );
  // Users by id (`user:<id>`) and by e-mail (`account:<e-mail>`, a sign-in): one query for both.
  const userIds = wanted('user');
  const emails = wanted('account');
  if (userIds.length + emails.length > 0) {
    lookups.push(
      k
        .selectFrom('users')
        .select(['id', 'email'])
        .where((eb) =>
          eb.or([
            ...(userIds.length > 0 ? [eb('id', 'in', userIds)] : []),
            ...(emails.length > 0 ? [eb('email', 'in', emails)] : []),
          ]),
        )
        .execute()
        .then((users) => {
          for (const u of users) {
            const ref: AuditTargetRef = { kind: 'user', id: u.id, label: u.email };
            found.set(`user:${u.id}`, ref);
            found.set(`account:${u.email}`, ref);
          }
        }),
    );
  }
  lookup(
    'view',
    (keys) => k.selectFrom('saved_views').select(['id', 'name']).where('id', 'in', keys).execute(),
    (r) => [[`view:${r.id}`, { kind: 'view', id: r.id, label: r.name }]],
  );
  await Promise.all(lookups);
  return rows.map((row) => ({
    ...row,
    targetRef: row.target === null ? null : (found.get(row.target) ?? null),
  }));
}

/**
 * The stored targets `text` names, for the filter: itself (a target as stored), and the targets of
 * the records it is the id of, or the orderid or client_orderid (transactions, payouts, payment
 * links), the recurring-payment id or client_orderid (subscriptions) or the e-mail (users, and
 * sign-ins to that e-mail) of, and the card reference it is the id of: what the list shows as a
 * target's label can be pasted here.
 */
export async function targetsNamedBy(db: Db, text: string): Promise<string[]> {
  const k = targetsDb(db);
  const email = text.toLowerCase();
  const [transactions, payouts, links, subscriptions, users] = await Promise.all([
    k
      .selectFrom('transactions')
      .select('id')
      .where((eb) =>
        eb.or([eb('id', '=', text), eb('orderid', '=', text), eb('client_orderid', '=', text)]),
      )
      .limit(MATCHES_PER_KIND)
      .execute(),
    k
      .selectFrom('payouts')
      .select('id')
      .where((eb) =>
        eb.or([eb('id', '=', text), eb('orderid', '=', text), eb('client_orderid', '=', text)]),
      )
      .limit(MATCHES_PER_KIND)
      .execute(),
    k
      .selectFrom('payment_links')
      .select('id')
      .where((eb) =>
        eb.or([eb('id', '=', text), eb('orderid', '=', text), eb('client_orderid', '=', text)]),
      )
      .limit(MATCHES_PER_KIND)
      .execute(),
    k
      .selectFrom('subscriptions')
      .select('id')
      .where((eb) =>
        eb.or([
          eb('id', '=', text),
          eb('recurring_payment_id', '=', text),
          eb('client_orderid', '=', text),
        ]),
      )
      .limit(MATCHES_PER_KIND)
      .execute(),
    k
      .selectFrom('users')
      .select('id')
      .where((eb) => eb.or([eb('id', '=', text), eb('email', '=', email)]))
      .limit(MATCHES_PER_KIND)
      .execute(),
  ]);
  const targets = new Set<string>([text]);
  for (const r of transactions) targets.add(`transaction:${r.id}`);
  for (const r of payouts) targets.add(`payout:${r.id}`);
  for (const r of links) targets.add(`link:${r.id}`);
  for (const r of subscriptions) targets.add(`subscription:${r.id}`);
  for (const r of users) targets.add(`user:${r.id}`);
  // Sign-in attempts name the e-mail typed, whether or not an account has it.
  if (email.includes('@')) targets.add(`account:${email}`);
  // Card-info requests name the card reference asked about, which the screens show by its id (no
  // table of Paydesk's holds every reference: the gateway keeps the cards, so nothing is read).
  if (CARD_REF_ID.test(text)) targets.add(`card-ref:${text}`);
  return [...targets];
}
