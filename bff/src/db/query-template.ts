// Queries on the hot paths (a staff request's session, a capture's writes, a callback's), written
// with Kysely's typed query builder but built and compiled once per database and shape, then only
// given new values. Kysely builds an operation tree and compiles it to SQL on every call; on a
// capture that was about 1.6 ms of the BFF's CPU on a slow machine
// (test/bench/RESULTS-payments.md, session 10), for SQL text that never changes.
//
// The first time, a template's builder receives stand-ins in place of its values: strings that
// Kysely passes through as parameters. Compiling finds each stand-in among the parameters, and
// later calls copy the compiled query with their own values where the stand-ins were. So a builder
// may only hand its values to the query builder as they are (no arithmetic, no concatenation, no
// branching on them; compiling refuses a value it cannot find as a parameter of its own). What the
// query's shape may depend on is the values' structure: which keys an object has (an update's
// columns; an `undefined` value counts as absent, as Kysely leaves such a column out) and how long
// an array is (an insert's rows). Each structure is a shape of its own, compiled the first time it
// is met; there are few on any path.
import type { CompiledQuery, Compilable, Kysely } from 'kysely';

/**
 * The prefix of a stand-in. Only a shape's first call, the one compiled, sees stand-ins; the
 * prefix tells them apart from constants the builder writes itself.
 */
const STAND_IN = '\u0000paydesk-template\u0000';

/** How many shapes of one template are kept compiled, per database. */
const SHAPES_KEPT = 64;

/** Where a compiled template's parameter comes from: the values' leaf by index, or the builder. */
type Slot = number | { readonly constant: unknown };

interface Compiled<O> {
  readonly query: CompiledQuery<O>;
  readonly slots: readonly Slot[];
  /** the shape it was compiled for (`scan`) */
  readonly shape: readonly string[];
}

/** A template's compiled shapes on one database; `last` is the one used last. */
interface Shapes<O> {
  last: Compiled<O> | undefined;
  readonly byName: Map<string, Compiled<O>>;
}

/** An object literal or a null-prototype object: its keys are structure, not a value. */
function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** What a template's values may hold: what a driver takes as a parameter. */
function isPlainValue(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value === 'object') return value instanceof Uint8Array;
  return typeof value !== 'function' && typeof value !== 'symbol';
}

/**
 * Walks the values depth first: their leaves in order, and their shape (every key, array length
 * and leaf mark on the way).
 */
function scan(value: unknown, leaves: unknown[], shape: string[]): void {
  if (Array.isArray(value)) {
    shape.push('[', String(value.length));
    for (const item of value) scan(item, leaves, shape);
    shape.push(']');
  } else if (isRecord(value)) {
    shape.push('{');
    for (const key of Object.keys(value)) {
      const item = value[key];
      // Kysely leaves out a column whose value is undefined: it is not part of the shape.
      if (item === undefined) continue;
      shape.push(key);
      scan(item, leaves, shape);
    }
    shape.push('}');
  } else if (isPlainValue(value)) {
    shape.push('=');
    leaves.push(value);
  } else {
    // A query-builder expression (`sql`…``, `eb.ref(…)`) is part of the query, not a value.
    throw new Error(`query template: value ${String(leaves.length)} is not a plain value`);
  }
}

/** The values in the same structure, each leaf replaced by its stand-in (in `scan`'s order). */
function standIns(value: unknown, next: { index: number }): unknown {
  if (Array.isArray(value)) return value.map((item) => standIns(item, next));
  if (isRecord(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (item !== undefined) out[key] = standIns(item, next);
    }
    return out;
  }
  const index = next.index;
  next.index += 1;
  return STAND_IN + String(index);
}

function sameShape(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function compile<O>(built: Compilable<O>, leafCount: number, shape: string[]): Compiled<O> {
  const query = built.compile();
  if (query.sql.includes(STAND_IN))
    throw new Error('query template: a value became part of the SQL text, not a parameter');
  const used = new Set<number>();
  const slots = query.parameters.map((parameter): Slot => {
    if (typeof parameter === 'string' && parameter.includes(STAND_IN)) {
      const index = Number(parameter.slice(STAND_IN.length));
      if (!parameter.startsWith(STAND_IN) || !(index >= 0 && index < leafCount))
        throw new Error('query template: a value was changed on its way to the query');
      used.add(index);
      return index;
    }
    return { constant: parameter };
  });
  if (used.size !== leafCount) throw new Error('query template: a value is not a parameter');
  return { query, slots, shape };
}

/**
 * A query written with Kysely's builder, compiled once per database (per Kysely instance, shared
 * by its transactions) and shape, then given new values: `template(db, values)` is what
 * `build(db, values).compile()` would be, for `db.executeQuery` or a write batch.
 */
export function queryTemplate<DB, P, O>(
  build: (db: Kysely<DB>, values: P) => Compilable<O>,
): (db: Kysely<DB>, values: P) => CompiledQuery<O> {
  // By the executor's adapter: one per Kysely instance, the same for its transactions.
  const byDatabase = new WeakMap<object, Shapes<O>>();
  return (db, values) => {
    const adapter = db.getExecutor().adapter;
    let shapes = byDatabase.get(adapter);
    if (shapes === undefined) {
      shapes = { last: undefined, byName: new Map() };
      byDatabase.set(adapter, shapes);
    }
    const leaves: unknown[] = [];
    const shape: string[] = [];
    scan(values, leaves, shape);
    let entry = shapes.last;
    if (entry === undefined || !sameShape(entry.shape, shape)) {
      const name = shape.join('\u0001');
      entry = shapes.byName.get(name);
      if (entry === undefined) {
        const stood = standIns(values, { index: 0 }) as P;
        entry = compile(build(db, stood), leaves.length, shape);
        // A template meeting ever new shapes (rows of every count) keeps only the first ones.
        if (shapes.byName.size < SHAPES_KEPT) shapes.byName.set(name, entry);
      }
      shapes.last = entry;
    }
    const parameters = entry.slots.map((slot) =>
      typeof slot === 'number' ? leaves[slot] : slot.constant,
    );
    return { ...entry.query, parameters };
  };
}
