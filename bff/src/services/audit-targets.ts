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

/** The gateway's orderid of a transaction, null while it holds a placeholder. */
const transactionOrderid = (r: { orderid: string }) => {
  const orderid = gatewayOrderId(r.orderid);
  return orderid === undefined ? null : label(orderid);
};

/** The gateway's orderid of a transaction, its client_orderid while that is a placeholder. */
const transactionLabel = (r: { orderid: string; client_orderid: string }) =>
  transactionOrderid(r) ?? label(r.client_orderid);

/** A payout's or payment link's gateway orderid, its client_orderid until the gateway named it. */
const orderLabel = (r: { orderid: string | null; client_orderid: string }) =>
  label(r.orderid ?? r.client_orderid);

/** The kinds whose records have an order at the gateway (orderid, client_orderid). */
type OrderKind = 'transaction' | 'payout' | 'link';
const ORDER_TABLES = {
  transaction: 'transactions',
  payout: 'payouts',
  link: 'payment_links',
} as const satisfies Record<OrderKind, keyof (PaymentsTables & PayoutsTables)>;

interface OrderRecord {
  id: string;
  orderid: string | null;
  client_orderid: string;
}

/**
 * Each row with `targetRef`: what its target names (transaction, payout, payment link,
 * subscription, user or saved view), looked up with one query per kind for all of `rows`; null when
 * the row has none, of a kind not resolved, or naming a record that is gone. Every row names its
 * record `<kind>:<Paydesk id>` (the id of its page), as written since the first release.
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
  const orders = (kind: OrderKind, ref: (r: OrderRecord) => AuditTargetRef) => {
    const keys = wanted(kind);
    if (keys.length === 0) return;
    lookups.push(
      k
        .selectFrom(ORDER_TABLES[kind])
        .select(['id', 'orderid', 'client_orderid'])
        .where('id', 'in', keys)
        .execute()
        .then((records: OrderRecord[]) => {
          for (const r of records) found.set(`${kind}:${r.id}`, ref(r));
        }),
    );
  };
  orders('transaction', (r) => ({
    kind: 'transaction',
    id: r.id,
    label: transactionLabel({ orderid: r.orderid ?? '', client_orderid: r.client_orderid }),
    orderid: transactionOrderid({ orderid: r.orderid ?? '' }),
  }));
  orders('payout', (r) => ({
    kind: 'payout',
    id: r.id,
    label: orderLabel(r),
    orderid: r.orderid === null ? null : label(r.orderid),
  }));
  orders('link', (r) => ({
    kind: 'link',
    id: r.id,
    label: orderLabel(r),
    orderid: r.orderid === null ? null : label(r.orderid),
  }));
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
          orderid: r.recurring_payment_id === null ? null : label(r.recurring_payment_id),
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
            const ref: AuditTargetRef = { kind: 'user', id: u.id, label: u.email, orderid: null };
            found.set(`user:${u.id}`, ref);
            found.set(`account:${u.email}`, ref);
          }
        }),
    );
  }
  lookup(
    'view',
    (keys) => k.selectFrom('saved_views').select(['id', 'name']).where('id', 'in', keys).execute(),
    (r) => [[`view:${r.id}`, { kind: 'view', id: r.id, label: r.name, orderid: null }]],
  );
  await Promise.all(lookups);
  return rows.map((row) => ({
    ...row,
    targetRef: row.target === null ? null : (found.get(row.target) ?? null),
  }));
}

/** A record's id as the SPA's addresses hold it (`/payouts/:id`): compared in lowercase. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The kinds a filter's text may be prefixed with (`payout:1000123`): only that kind is searched. */
const FILTER_KINDS = [...KINDS, 'card-ref'] as const;
type FilterKind = (typeof FILTER_KINDS)[number];

function splitKind(text: string): { kind: FilterKind; rest: string } | null {
  const colon = text.indexOf(':');
  if (colon <= 0) return null;
  const kind = FILTER_KINDS.find((k) => k === text.slice(0, colon));
  const rest = text.slice(colon + 1).trim();
  return kind === undefined || rest === '' ? null : { kind, rest };
}

/**
 * The stored targets `typed` names, for the filter: itself (a target as stored), and the targets of
 * the records it is the id of, or the orderid or client_orderid (transactions, payouts, payment
 * links), the recurring-payment id or client_orderid (subscriptions) or the e-mail (users, and
 * sign-ins to that e-mail) of, and the card reference it is the id of: what the list shows as a
 * target's label can be pasted here. `payout:` (or another kind's name and a colon) before it
 * searches that kind only, so a payout's page address's id finds its rows with or without it.
 * `<kind>:<text>` of every kind is searched too: a row naming a record that is gone, or an id that
 * named nothing (a refused request for `/api/transactions/<typo>`), is found by the id it holds.
 */
export async function targetsNamedBy(db: Db, typed: string): Promise<string[]> {
  const k = targetsDb(db);
  const prefixed = splitKind(typed);
  const text = prefixed?.rest ?? typed;
  const wants = (kind: FilterKind) => prefixed === null || prefixed.kind === kind;
  const id = UUID.test(text) ? text.toLowerCase() : text;
  const email = text.toLowerCase();
  const none = Promise.resolve([]);
  const orders = (kind: OrderKind): Promise<OrderRecord[]> =>
    wants(kind)
      ? k
          .selectFrom(ORDER_TABLES[kind])
          .select(['id', 'orderid', 'client_orderid'])
          .where((eb) =>
            eb.or([eb('id', '=', id), eb('orderid', '=', text), eb('client_orderid', '=', text)]),
          )
          .limit(MATCHES_PER_KIND)
          .execute()
      : none;
  const [transactions, payouts, links, subscriptions, users] = await Promise.all([
    orders('transaction'),
    orders('payout'),
    orders('link'),
    wants('subscription')
      ? k
          .selectFrom('subscriptions')
          .select('id')
          .where((eb) =>
            eb.or([
              eb('id', '=', id),
              eb('recurring_payment_id', '=', text),
              eb('client_orderid', '=', text),
            ]),
          )
          .limit(MATCHES_PER_KIND)
          .execute()
      : none,
    wants('user')
      ? k
          .selectFrom('users')
          .select('id')
          .where((eb) => eb.or([eb('id', '=', id), eb('email', '=', email)]))
          .limit(MATCHES_PER_KIND)
          .execute()
      : none,
  ]);
  const targets = new Set<string>([typed]);
  for (const kind of KINDS) {
    if (kind === 'account' || !wants(kind)) continue;
    targets.add(`${kind}:${text}`);
    targets.add(`${kind}:${id}`);
  }
  const found: [OrderKind, OrderRecord[]][] = [
    ['transaction', transactions],
    ['payout', payouts],
    ['link', links],
  ];
  for (const [kind, records] of found) {
    for (const r of records) targets.add(`${kind}:${r.id}`);
  }
  for (const r of subscriptions) targets.add(`subscription:${r.id}`);
  for (const r of users) targets.add(`user:${r.id}`);
  // Sign-in attempts name the e-mail typed, whether or not an account has it.
  if (wants('account') && email.includes('@')) targets.add(`account:${email}`);
  // Card-info requests name the card reference asked about, which the screens show by its id (no
  // table of Paydesk's holds every reference: the gateway keeps the cards, so nothing is read).
  if (wants('card-ref') && CARD_REF_ID.test(text)) targets.add(`card-ref:${text}`);
  // Only those some row holds (read from the audit_log_target index): the list's query then names
  // no more targets than it must, one where one is all (its rows come newest first, unsorted).
  const held = await k
    .selectFrom('audit_log')
    .select('target')
    .distinct()
    .where('target', 'in', [...targets])
    .execute();
  const named = held.flatMap((r) => (r.target === null ? [] : [r.target]));
  // None held: the text itself, which no row holds either (the filter finds nothing).
  return named.length > 0 ? named.sort() : [typed];
}
