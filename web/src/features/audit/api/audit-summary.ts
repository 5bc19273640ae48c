// An audit row's summary in words: its keys as labels people read ("Idempotency key", not
// `idempotencyKey`), yes/no for true/false, and the states, kinds, modes and roles Paydesk records
// by the words its screens show them in ("Awaiting approval", not `pending_approval`; "Operations",
// not `ops`); anything else as recorded (ids, amounts, error codes: the evidence). The export keeps
// the raw keys and values.
import {
  ROLE_LABELS,
  type PaymentLinkKind,
  type PaymentLinkState,
  type PayoutState,
  type Role,
} from '@paydesk/shared/api';
import { PAYOUT_STATE_LOOK } from '../../payouts/components/payout-state-chip';
import { DESTINATION_KIND_LABELS } from '../../payouts/components/destination-labels';
import { KIND_LABELS, LINK_STATE_LOOK } from '../../payment-links/components/link-labels';
import { STATUS_LOOK } from '../../transactions/components/status-chip';

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
  check: 'Checked',
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

function has<K extends string>(record: Readonly<Record<K, unknown>>, key: string): key is K {
  return Object.hasOwn(record, key);
}

const PAYOUT_MODE_WORDS: Readonly<Record<string, string>> = {
  'two-step': 'Two-step (checked, then paid on approval)',
  single: 'Single (paid on approval, unchecked)',
};

const CHECK_WORDS: Readonly<Record<string, string>> = {
  explicit: 'on request',
  automatic: 'on opening the audit log',
};

/**
 * A payout's or payment link's state (`state`, `result`) as its chip says it: the family of the
 * action first (a link's `expired` and a payout's are said alike anyway), then the other.
 */
function stateWords(value: string, action: string): string | undefined {
  const payout = has<PayoutState>(PAYOUT_STATE_LOOK, value)
    ? PAYOUT_STATE_LOOK[value].label
    : undefined;
  const link = has<PaymentLinkState>(LINK_STATE_LOOK, value)
    ? LINK_STATE_LOOK[value].label
    : undefined;
  return action.startsWith('payment_link.') ? (link ?? payout) : (payout ?? link);
}

/** A recorded value that the screens say in words (see the file's comment); undefined: none. */
function knownWords(key: string, value: string, action: string): string | undefined {
  switch (key) {
    case 'state':
    case 'result':
      return stateWords(value, action);
    case 'status':
      return has(STATUS_LOOK, value) ? STATUS_LOOK[value].label : undefined;
    case 'kind':
      if (has<PaymentLinkKind>(KIND_LABELS, value)) return KIND_LABELS[value];
      return has(DESTINATION_KIND_LABELS, value) ? DESTINATION_KIND_LABELS[value] : undefined;
    case 'mode':
      return PAYOUT_MODE_WORDS[value];
    case 'check':
      return CHECK_WORDS[value];
    case 'invalid': {
      // A refusal's field and rule, as the BFF records them (`totp: wrong_code`):
      // "totp (wrong code)".
      const [, path, rule] = /^(.+?): (.+)$/.exec(value) ?? [];
      return path === undefined || rule === undefined
        ? undefined
        : `${path} (${words(rule).toLowerCase()})`;
    }
    case 'roles':
      // A user's roles (created, changed) as the Users screen names them: "Operations", not `ops`.
      return has<Role>(ROLE_LABELS, value) ? ROLE_LABELS[value] : undefined;
    default:
      return undefined;
  }
}

/**
 * A value of the summary in words: true/false as Yes/No, a known state or kind by its screen
 * label (`key` and the row's `action` say which), nested objects as "key value" pairs, a labelled
 * one by its label, a payout destination as its kind and masked number ("Card 555555******4444").
 */
export function valueText(value: unknown, key = '', action = ''): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string') return knownWords(key, value, action) ?? value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return value.map((inner) => valueText(inner, key, action)).join(', ');
  if (typeof value === 'object') {
    // A destination, a card: its label says it best ("Visa •••• 1111").
    if ('label' in value && typeof value.label === 'string') return value.label;
    if (
      'kind' in value &&
      'masked' in value &&
      typeof value.kind === 'string' &&
      typeof value.masked === 'string' &&
      has(DESTINATION_KIND_LABELS, value.kind)
    )
      return `${DESTINATION_KIND_LABELS[value.kind]} ${value.masked}`;
    return Object.entries(value)
      .filter(([, inner]) => inner !== null && inner !== undefined)
      .map(([innerKey, inner]) => {
        const text = valueText(inner, innerKey, action);
        // "disabled Yes" reads oddly: a flag inside a value is said by its name, or "not …".
        if (typeof inner === 'boolean')
          return inner ? innerKeyLabel(innerKey) : `not ${innerKeyLabel(innerKey)}`;
        return `${innerKeyLabel(innerKey)} ${text}`;
      })
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

/**
 * The summary as "Label: value" pairs; keys with no value (null, `{}`) are left out. `action` is
 * the row's, which says whose states a `state` or `result` holds.
 */
export function summaryText(summary: Record<string, unknown>, action = ''): string {
  return Object.entries(summary)
    .filter(([, value]) => !isEmpty(value))
    .map(([key, value]) => `${summaryKeyLabel(key)}: ${valueText(value, key, action)}`)
    .join(' · ');
}
