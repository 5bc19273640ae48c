// What a payout's timelines keep from every reader: the payouts module's history of the payout,
// and the payments core's timeline of its gateway order (whose `status` replies echo the payee's
// name and the card's expiry).

/**
 * What a timeline keeps from no reader, whatever their role: it is written without it, and an entry
 * stored before that rule is read back without it too.
 */
export interface Withheld {
  /** request and reply fields whose value is replaced by WITHHELD, wherever they stand */
  fields: ReadonlySet<string>;
  /** whether a card destination's `label` (its holder's name and expiry) is left out */
  cardLabel: boolean;
}

export const WITHHELD = '[withheld]';

/**
 * A payout's history: the payee's name and the card's expiry (the request's `card_printed_name`,
 * `expire_month`, `expire_year`, what `status` echoes of them, a card destination's label). Ops
 * users see them on the payout itself; support and auditors see the masked card alone.
 */
export const PAYOUT_HISTORY: Withheld = {
  fields: new Set([
    'card_printed_name',
    'expire_month',
    'expire_year',
    'card-printed-name',
    'cardholder-name',
    'expire-month',
    'expire-year',
    'card-exp-month',
    'card-exp-year',
  ]),
  cardLabel: true,
};

/** `value` with what `w` withholds replaced. An unreadable reply naming such a field goes whole. */
export function withhold(value: unknown, w: Withheld, key = ''): unknown {
  if (typeof value === 'string') {
    if (key === 'rawReply' && [...w.fields].some((f) => value.includes(f))) return WITHHELD;
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => withhold(v, w));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const card = w.cardLabel && object.kind === 'card';
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(object)) {
    if (card && k === 'label') continue;
    out[k] = w.fields.has(k) ? WITHHELD : withhold(v, w, k);
  }
  return out;
}
