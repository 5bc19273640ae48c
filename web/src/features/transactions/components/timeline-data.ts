// A timeline entry's data (redacted by the BFF) as labelled groups of rows, for the Details of the
// order's, payout's and payment link's timelines. The raw JSON stays beside it for engineers, who
// paste it into tickets to the gateway.

/** A value as the reader sees it: text, or one line per item of a list. */
export type DetailValue = string | readonly string[];

export interface DetailRow {
  /** A field's name as recorded (a gateway field such as `client_orderid`), or Paydesk's label. */
  name: string;
  /**
   * Whether `name` is the field's own name: shown verbatim in monospace, because staff and the
   * gateway's support search for it. False for Paydesk's words about an exchange ("HTTP status").
   */
  field: boolean;
  value: DetailValue;
}

export interface DetailGroup {
  title: string;
  /** Whether `title` is a key of the data as recorded (shown as `name` is when `field`). */
  field: boolean;
  rows: DetailRow[];
}

/** Past this many rows or this deep, the groups would be harder to read than the JSON itself. */
const MAX_ROWS = 300;
const MAX_DEPTH = 4;

/** Thrown inside the flattening when the data is not a shape the groups can show. */
class Unreadable extends Error {}

type Plain = Record<string, unknown>;

const isPlain = (value: unknown): value is Plain =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

type Scalar = string | number | boolean | null;

const isScalar = (value: unknown): value is Scalar =>
  value === null ||
  typeof value === 'string' ||
  typeof value === 'number' ||
  typeof value === 'boolean';

/**
 * A scalar in words. Null is a dash and the empty string says so, since neither would show as
 * anything on a row.
 */
function scalarText(value: Scalar): string {
  if (value === null) return '—';
  if (value === '') return '(empty)';
  return String(value);
}

/**
 * A value's rows under `name`: a scalar is one row, a list of scalars one row of lines, an object
 * one row per field, named by its path (`paydesk.status`), a list of objects by index
 * (`items[0].id`). Anything deeper than MAX_DEPTH is not shown as rows.
 */
function flatten(name: string, value: unknown, depth: number, into: DetailRow[]): void {
  if (depth > MAX_DEPTH) throw new Unreadable();
  if (isScalar(value)) {
    into.push({ name, field: true, value: scalarText(value) });
  } else if (Array.isArray(value)) {
    if (value.length === 0) into.push({ name, field: true, value: '(none)' });
    else if (value.every(isScalar)) into.push({ name, field: true, value: value.map(scalarText) });
    else
      value.forEach((item, i) => {
        flatten(`${name}[${String(i)}]`, item, depth + 1, into);
      });
  } else if (isPlain(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) into.push({ name, field: true, value: '(none)' });
    for (const [key, inner] of entries) flatten(`${name}.${key}`, inner, depth + 1, into);
  } else {
    // Not something JSON holds (the API sends JSON): no row could say what it is.
    throw new Unreadable();
  }
}

/** An object's fields: its scalars and lists as rows, each object in it as a group of its own. */
function objectParts(data: Plain): { own: DetailRow[]; nested: DetailGroup[] } {
  const own: DetailRow[] = [];
  const nested: DetailGroup[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (isPlain(value) && Object.keys(value).length > 0) {
      const rows: DetailRow[] = [];
      for (const [inner, v] of Object.entries(value)) flatten(inner, v, 2, rows);
      // Its title is its key as recorded (`paydesk`, `gateway`, `reviewed`), as a row's name is.
      nested.push({ title: key, field: true, rows });
    } else {
      flatten(key, value, 1, own);
    }
  }
  return { own, nested };
}

/** A request's or a reply's fields: names and values as sent or received (all text). */
const isFields = (value: unknown): value is Record<string, string> =>
  isPlain(value) && Object.values(value).every((v) => typeof v === 'string');

/**
 * What Paydesk records of a gateway exchange around its fields (gateway-client `GatewayExchange`
 * and `exchangeData`), in the order a reader wants them: what was asked, how it went, then where
 * and when. Its nulls (no reply yet, no error) say nothing and are left out.
 */
const EXCHANGE_LABELS: readonly (readonly [string, string])[] = [
  ['operation', 'Operation'],
  ['outcome', 'Outcome'],
  ['reason', 'Reason'],
  ['httpStatus', 'HTTP status'],
  ['error', 'Error'],
  ['endpointId', 'Endpoint'],
  ['url', 'URL'],
  ['sentAt', 'Sent'],
  ['receivedAt', 'Received'],
];
const EXCHANGE_KEYS = new Set([
  ...EXCHANGE_LABELS.map(([key]) => key),
  'request',
  'reply',
  'rawReply',
]);

interface Exchange extends Plain {
  request: Record<string, string>;
}

/**
 * A gateway exchange: a request's fields, and a reply's (null until one came, or when it could not
 * be read) or an HTTP status. Anything else under those names is not one, and shows as other data.
 */
function isExchange(data: Plain): data is Exchange {
  return (
    isFields(data.request) &&
    ('reply' in data || 'httpStatus' in data) &&
    (data.reply === undefined || data.reply === null || isFields(data.reply)) &&
    (data.rawReply === undefined || isScalar(data.rawReply)) &&
    EXCHANGE_LABELS.every(([key]) => data[key] === undefined || isScalar(data[key]))
  );
}

const fieldRows = (fields: Record<string, string>): DetailRow[] =>
  Object.entries(fields).map(([name, value]) => ({ name, field: true, value: scalarText(value) }));

/**
 * An exchange as "Exchange" (how it went), "Request" and "Reply", or the reply's body as received
 * when it could not be read. Other data beside it (a settlement check's count) joins the first.
 */
function exchangeGroups(data: Exchange): DetailGroup[] {
  const summary: DetailRow[] = [];
  for (const [key, label] of EXCHANGE_LABELS) {
    const value = data[key];
    if (isScalar(value) && value !== null) {
      summary.push({ name: label, field: false, value: scalarText(value) });
    }
  }
  const { own, nested } = objectParts(
    Object.fromEntries(Object.entries(data).filter(([key]) => !EXCHANGE_KEYS.has(key))),
  );
  const groups: DetailGroup[] = [
    { title: 'Exchange', field: false, rows: [...summary, ...own] },
    { title: 'Request', field: false, rows: fieldRows(data.request) },
  ];
  if (isFields(data.reply)) {
    groups.push({ title: 'Reply', field: false, rows: fieldRows(data.reply) });
  } else if (typeof data.rawReply === 'string') {
    groups.push({
      title: 'Reply as received (not readable as fields)',
      field: false,
      rows: [{ name: 'Body', field: false, value: scalarText(data.rawReply) }],
    });
  }
  return [...groups, ...nested];
}

/**
 * An entry's data as groups of rows: a gateway exchange as "Exchange", "Request" and "Reply", any
 * other data (a callback's fields, a staff action's reason, a drift's two sides) under `title` with
 * its objects as groups of their own. Null when the data has nothing to show or a shape the rows
 * cannot say (not an object, too deep, too long): the raw JSON is shown instead.
 */
export function timelineDetailGroups(data: unknown, title: string): DetailGroup[] | null {
  if (!isPlain(data)) return null;
  try {
    let groups: DetailGroup[];
    if (isExchange(data)) {
      groups = exchangeGroups(data);
    } else {
      const { own, nested } = objectParts(data);
      groups = [{ title, field: false, rows: own }, ...nested];
    }
    groups = groups.filter((group) => group.rows.length > 0);
    const rows = groups.reduce((count, group) => count + group.rows.length, 0);
    return rows > 0 && rows <= MAX_ROWS ? groups : null;
  } catch (err) {
    if (err instanceof Unreadable) return null;
    throw err;
  }
}

/** Whether an entry has data to disclose: an object with at least one field, or anything else. */
export function hasTimelineData(data: unknown): boolean {
  if (data === null || data === undefined) return false;
  return !isPlain(data) || Object.keys(data).length > 0;
}

/** The data as the BFF recorded it, indented, for engineers' tickets to the gateway. */
export function rawTimelineData(data: unknown): string {
  // Neither has JSON (JSON.stringify gives undefined): its text is still something to show.
  if (data === undefined || typeof data === 'function' || typeof data === 'symbol') {
    return String(data);
  }
  return JSON.stringify(data, null, 2);
}
