// Sandbox state: in memory, written through to SQLite (node:sqlite) when SANDBOX_DB is set.
// One JSON row per entity keeps the schema trivial and the restart faithful.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { CallbackDelivery, CardRef, Order, RecurringPayment } from './types.js';

const TABLES = ['orders', 'card_refs', 'recurring_payments', 'callbacks'] as const;
type Table = (typeof TABLES)[number];

function replacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? { $bigint: value.toString() } : value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const big = record.$bigint;
    if (typeof big === 'string' && Object.keys(record).length === 1) return BigInt(big);
  }
  return value;
}

export function toJson(value: unknown): string {
  return JSON.stringify(value, replacer);
}

export function fromJson(text: string): unknown {
  return JSON.parse(text, reviver) as unknown;
}

class Persistence {
  private readonly db: DatabaseSync;
  private readonly upserts: Record<Table, StatementSync>;
  private readonly setMeta: StatementSync;

  constructor(path: string) {
    this.db = new DatabaseSync(path);
    this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    for (const table of TABLES) {
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${table} (id TEXT PRIMARY KEY, body TEXT NOT NULL)`);
    }
    this.db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const upsert = (table: Table) =>
      this.db.prepare(
        `INSERT INTO ${table} (id, body) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET body = excluded.body`,
      );
    this.upserts = {
      orders: upsert('orders'),
      card_refs: upsert('card_refs'),
      recurring_payments: upsert('recurring_payments'),
      callbacks: upsert('callbacks'),
    };
    this.setMeta = this.db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
  }

  save(table: Table, id: string, value: unknown): void {
    this.upserts[table].run(id, toJson(value));
  }

  all(table: Table): unknown[] {
    const rows = this.db.prepare(`SELECT body FROM ${table}`).all();
    return rows.map((row) => fromJson(String(row.body)));
  }

  meta(key: string): string | undefined {
    const row = this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key);
    return row === undefined ? undefined : String(row.value);
  }

  putMeta(key: string, value: string): void {
    this.setMeta.run(key, value);
  }

  clear(): void {
    for (const table of TABLES) this.db.exec(`DELETE FROM ${table}`);
    this.db.exec('DELETE FROM meta');
  }

  close(): void {
    this.db.close();
  }
}

const FIRST_ORDER_ID = 1_000_001;

export class Store {
  readonly orders = new Map<string, Order>();
  /** `${endpointId}|${client_orderid}` → orderid, for status by client_orderid and duplicates. */
  private readonly byClientOrderId = new Map<string, string>();
  readonly cardRefs = new Map<string, CardRef>();
  readonly recurring = new Map<string, RecurringPayment>();
  readonly callbacks = new Map<string, CallbackDelivery>();
  private nextOrderId = FIRST_ORDER_ID;
  private readonly persistence: Persistence | undefined;

  constructor(dbPath?: string) {
    this.persistence = dbPath === undefined ? undefined : new Persistence(dbPath);
    if (this.persistence) this.load(this.persistence);
  }

  get persistent(): boolean {
    return this.persistence !== undefined;
  }

  private load(p: Persistence): void {
    for (const o of p.all('orders') as Order[]) {
      this.orders.set(o.orderid, o);
      this.byClientOrderId.set(`${o.endpointId}|${o.clientOrderId}`, o.orderid);
    }
    for (const c of p.all('card_refs') as CardRef[]) this.cardRefs.set(c.id, c);
    for (const r of p.all('recurring_payments') as RecurringPayment[]) this.recurring.set(r.id, r);
    for (const d of p.all('callbacks') as CallbackDelivery[]) this.callbacks.set(d.id, d);
    this.nextOrderId = Number(p.meta('nextOrderId') ?? FIRST_ORDER_ID);
  }

  /** Nothing given out yet: no order, card ref, plan or callback (so no date either). */
  get isEmpty(): boolean {
    return (
      this.orders.size === 0 &&
      this.cardRefs.size === 0 &&
      this.recurring.size === 0 &&
      this.callbacks.size === 0
    );
  }

  /** A fresh numeric paynet-order-id. */
  allocateOrderId(): string {
    const id = this.nextOrderId++;
    this.persistence?.putMeta('nextOrderId', String(this.nextOrderId));
    return String(id);
  }

  findByClientOrderId(endpointId: number, clientOrderId: string): Order | undefined {
    const id = this.byClientOrderId.get(`${endpointId}|${clientOrderId}`);
    return id === undefined ? undefined : this.orders.get(id);
  }

  saveOrder(order: Order): void {
    if (!this.orders.has(order.orderid)) {
      this.byClientOrderId.set(`${order.endpointId}|${order.clientOrderId}`, order.orderid);
    }
    this.orders.set(order.orderid, order);
    this.persistence?.save('orders', order.orderid, order);
  }

  saveCardRef(ref: CardRef): void {
    this.cardRefs.set(ref.id, ref);
    this.persistence?.save('card_refs', ref.id, ref);
  }

  saveRecurring(rp: RecurringPayment): void {
    this.recurring.set(rp.id, rp);
    this.persistence?.save('recurring_payments', rp.id, rp);
  }

  saveCallback(delivery: CallbackDelivery): void {
    this.callbacks.set(delivery.id, delivery);
    this.persistence?.save('callbacks', delivery.id, delivery);
  }

  /** Clock offset survives a restart so that clock-driven state stays consistent. */
  saveClockOffset(offsetMs: number): void {
    this.persistence?.putMeta('clockOffsetMs', String(offsetMs));
  }

  loadClockOffset(): number {
    return Number(this.persistence?.meta('clockOffsetMs') ?? 0);
  }

  reset(): void {
    this.orders.clear();
    this.byClientOrderId.clear();
    this.cardRefs.clear();
    this.recurring.clear();
    this.callbacks.clear();
    this.nextOrderId = FIRST_ORDER_ID;
    this.persistence?.clear();
  }

  close(): void {
    this.persistence?.close();
  }
}
