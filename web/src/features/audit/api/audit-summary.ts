// An audit row's summary in words: its keys as labels people read ("Idempotency key", not
// `idempotencyKey`), its values as they were recorded. The export keeps the raw keys.

/** Labels of the keys Paydesk writes whose words alone would say too little or mislead. */
const SUMMARY_LABELS: Readonly<Record<string, string>> = {
  idempotencyKey: 'Idempotency key',
  replayed: 'Replayed (stored reply)',
  orderid: 'Gateway order id',
  clientOrderId: 'Client order id',
  gatewaySerial: 'Gateway serial',
  recurringPaymentId: 'Recurring payment id',
  cardRefId: 'Card reference id',
  endpointId: 'Endpoint',
  orderDesc: 'Description',
  body: 'Request',
  maxPayments: 'Payments at most',
  bootstrap: 'First administrator (bootstrap)',
  sessionsRevoked: 'Sessions ended',
  invalid: 'Invalid fields',
  suppressedSinceLast: 'Like refusals not audited since the last row',
  headSeq: 'Chain head row',
  firstBrokenSeq: 'First broken row',
  ok: 'Chain intact',
  anchor: 'Recorded head',
  email: 'E-mail',
  bin: 'BIN',
};

/** `camelCase`, `snake_case` or `kebab-case` as words: "Second factor given". */
function words(key: string): string {
  const text = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .split(/\s+/)
    // An acronym stays as written (BIN, URL); other words are lower case after the first.
    .map((word) => (/^[A-Z0-9]{2,}$/.test(word) ? word : word.toLowerCase()))
    .join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A summary key as people read it: its label when Paydesk knows it, else its words. */
export function summaryKeyLabel(key: string): string {
  return SUMMARY_LABELS[key] ?? (words(key) || key);
}

/** A key inside a value ("Request: amount 5.00"): its label, lower case unless an acronym. */
function innerKeyLabel(key: string): string {
  const label = summaryKeyLabel(key);
  return /^[A-Z]{2}/.test(label) ? label : label.charAt(0).toLowerCase() + label.slice(1);
}

/** A value of the summary in words: nested objects as "key value" pairs, a labelled one by its label. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return String(value);
  }
  if (Array.isArray(value)) return value.map(valueText).join(', ');
  if (typeof value === 'object') {
    // A destination, a card: its label says it best ("Visa •••• 1111").
    if ('label' in value && typeof value.label === 'string') return value.label;
    return Object.entries(value)
      .filter(([, inner]) => inner !== null && inner !== undefined)
      .map(([key, inner]) => `${innerKeyLabel(key)} ${valueText(inner)}`)
      .join(', ');
  }
  return JSON.stringify(value);
}

/** Null, or an object with nothing in it (a request with no body): nothing to say. */
function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  return (
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every((inner) => inner === null || inner === undefined)
  );
}

/** The summary as "Label: value" pairs; keys with no value (null, `{}`) are left out. */
export function summaryText(summary: Record<string, unknown>): string {
  return Object.entries(summary)
    .filter(([, value]) => !isEmpty(value))
    .map(([key, value]) => `${summaryKeyLabel(key)}: ${valueText(value)}`)
    .join(' · ');
}
