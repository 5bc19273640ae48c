import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemText from '@mui/material/ListItemText';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  isWholeCardNumber,
  LookupBodySchema,
  LookupConflictDetailsSchema,
  TRANSACTION_ID_PATTERN,
  TransactionListQuerySchema,
  transactionSearchCard,
  type LookupBody,
  type LookupCandidate,
  type PayoutOrder,
  type TransactionDetail,
} from '@paydesk/shared/api';
import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type SyntheticEvent } from 'react';
import { useNavigate } from 'react-router';
import { GatewayWaitNote } from '../../../components/gateway-wait-note';
import { linkDetailQueryOptions } from '../../payment-links/api/payment-links';
import { payoutDetailQueryOptions } from '../../payouts/api/payouts';
import {
  subscriptionDetailQueryOptions,
  subscriptionListQueryOptions,
} from '../../subscriptions/api/subscriptions';
import { describeError, isApiError } from '../../../lib/api-client';
import { formatMoney } from '../../../lib/format';
import { sentenceOf } from '../../../lib/form-errors';
import {
  lookupTransaction,
  transactionDetailQueryOptions,
  transactionListQueryOptions,
  transactionKeys,
} from '../api/transactions';
import { TYPE_LABELS } from './labels';
import { PayoutOrderNotice } from './payout-order-notice';
import { STATUS_LOOK } from './status-chip';

/** What support typed: an id (first field), the order's client_orderid and its endpoint. */
export interface LookupInput {
  term: string;
  clientOrderId: string;
  endpointId: string;
}

/** One way to find the order: Paydesk's own id (no gateway call), or a gateway `status`. */
export type LookupAttempt = { kind: 'id'; id: string } | { kind: 'gateway'; body: LookupBody };

type Field = keyof LookupInput;

/**
 * A whole card number typed in the first field or the client_orderid (13–19 digits passing the
 * Luhn check, spaces or dashes between them: the list's `q` rule and the BFF's): never sent to the
 * gateway as an id nor shown back. `lastFour` is what the transactions list finds the card by.
 */
export function cardNumberIn(input: LookupInput): { field: Field; lastFour: string } | null {
  for (const field of ['term', 'clientOrderId'] as const) {
    // The whole field, as the BFF weighs it: an id with a run of digits among others is an id.
    if (isWholeCardNumber(input[field]))
      return { field, lastFour: input[field].replace(/\D/g, '').slice(-4) };
  }
  return null;
}

/** What the dialog says of a whole card number (the number itself never repeated). */
export function cardNumberNotice(lastFour: string): string {
  return `That looks like a whole card number (ending ${lastFour}). Paydesk never sends a card number to the gateway nor searches by it: search the transactions by its last four digits.`;
}

/** The field's own message for a whole card number (the dialog's notice says the rest). */
const CARD_NUMBER_PROBLEM =
  'Looks like a card number: it is not sent. Search by its last four digits.';

/** What the first field holds when it is no order's id: an e-mail address or a masked card. */
function searchTermKind(term: string): 'email' | 'card' | null {
  if (/^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(term)) return 'email';
  return transactionSearchCard(term) === null ? null : 'card';
}

/**
 * What to ask for, or what to correct. The first field may be Paydesk's id (a UUID: opened if
 * Paydesk knows it, else tried as a client_orderid), the gateway's orderid (digits: also tried as
 * a client_orderid, since both may match different orders) or a client_orderid. With the second
 * field, the first is the orderid the gateway needs it with (or empty). An e-mail address or a
 * masked card alone is no order's id (the gateway finds orders by their ids only): `search`, the
 * transactions list's search for it, without asking the gateway. Four digits may be an orderid or
 * a client_orderid as well as a card's last four: the gateway is asked, and the list offered after.
 */
export function lookupAttempts(
  input: LookupInput,
):
  | { attempts: LookupAttempt[] }
  | { search: string }
  | { field: Field; problem: string; lastFour?: string } {
  // A card number goes nowhere: not to the BFF (which would refuse it too), not to the gateway.
  const card = cardNumberIn(input);
  if (card !== null)
    return { field: card.field, problem: CARD_NUMBER_PROBLEM, lastFour: card.lastFour };
  const term = input.term.trim();
  const clientOrderId = input.clientOrderId.trim();
  const endpointId = input.endpointId.trim();
  if (clientOrderId === '' && searchTermKind(term) !== null) return { search: term };
  const parse = (body: LookupBody) => {
    const parsed = LookupBodySchema.safeParse(endpointId === '' ? body : { ...body, endpointId });
    return parsed.success ? parsed.data : null;
  };
  if (endpointId !== '' && parse({ client_orderid: 'x' }) === null)
    return { field: 'endpointId', problem: 'An endpoint id is digits only.' };
  if (clientOrderId !== '') {
    const client = parse({ client_orderid: clientOrderId });
    if (client === null)
      return { field: 'clientOrderId', problem: 'A client order id is printable, without spaces.' };
    if (term === '') return { attempts: [{ kind: 'gateway', body: client }] };
    const both = parse({ orderid: term, client_orderid: clientOrderId });
    if (both === null)
      return {
        field: 'term',
        problem: 'With a client order id below, type the gateway’s orderid (digits) here.',
      };
    return { attempts: [{ kind: 'gateway', body: both }] };
  }
  if (term === '')
    return { field: 'term', problem: 'Type an orderid, a client order id or a Paydesk id.' };
  const attempts: LookupAttempt[] = [];
  if (TRANSACTION_ID_PATTERN.test(term)) attempts.push({ kind: 'id', id: term.toLowerCase() });
  for (const body of [parse({ orderid: term }), parse({ client_orderid: term })]) {
    if (body !== null) attempts.push({ kind: 'gateway', body });
  }
  return attempts.length > 0
    ? { attempts }
    : {
        field: 'term',
        problem:
          'Type the gateway’s orderid (digits), the shop’s client order id (no spaces) or a Paydesk id.',
      };
}

type LookupOutcome =
  | { kind: 'open'; detail: TransactionDetail }
  | { kind: 'record'; path: string }
  | { kind: 'payout'; payout: PayoutOrder }
  | { kind: 'choose'; candidates: LookupCandidate[]; payouts: PayoutOrder[] };

/** Nothing found; `needsClientOrderId`: Paydesk has not learned the orderid, which the gateway finds only with its client_orderid. */
class NotFound extends Error {
  constructor(readonly needsClientOrderId: boolean) {
    super('not found');
  }
}

const candidateOf = (d: Omit<LookupCandidate, 'id'> & { id: string }): LookupCandidate => ({
  endpointId: d.endpointId,
  orderid: d.orderid,
  clientOrderId: d.clientOrderId,
  type: d.type,
  status: d.status,
  amount: d.amount,
  currency: d.currency,
  id: d.id,
});

/** Paydesk's records besides orders that a Paydesk id (a UUID) may name, and their pages. */
const OTHER_RECORDS: readonly {
  page: string;
  read: (id: string, client: QueryClient) => Promise<unknown>;
}[] = [
  { page: '/payouts', read: (id, client) => client.query(payoutDetailQueryOptions(id)) },
  { page: '/payment-links', read: (id, client) => client.query(linkDetailQueryOptions(id)) },
  {
    page: '/subscriptions',
    read: (id, client) => client.query(subscriptionDetailQueryOptions(id)),
  },
];

/**
 * The page of the payout, payment link or subscription with this id, or null when none has it
 * (each asked at once; everyone who may look up reads all three). Another failure than "not
 * found" is said, not taken for "none".
 */
async function otherRecordPath(id: string, client: QueryClient): Promise<string | null> {
  const settled = await Promise.allSettled(
    OTHER_RECORDS.map(async ({ page, read }) => {
      await read(id, client);
      return `${page}/${encodeURIComponent(id)}`;
    }),
  );
  for (const result of settled) if (result.status === 'fulfilled') return result.value;
  for (const result of settled) {
    const reason: unknown = result.status === 'rejected' ? result.reason : null;
    if (!isApiError(reason) || reason.code !== 'NOT_FOUND') throw reason;
  }
  return null;
}

/**
 * The subscription (plan) whose recurring payment id or client order id was typed, when no order
 * matched it: a plan's page tells staff to quote its recurring payment id to the gateway, so
 * support is given it too. Asked of Paydesk only (`GET /api/subscriptions?q=`), after the gateway
 * found no order by it, so an order with the same digits is never hidden by a plan.
 */
async function planNamed(attempts: LookupAttempt[], client: QueryClient): Promise<string | null> {
  const terms = new Set<string>();
  for (const attempt of attempts) {
    if (attempt.kind !== 'gateway') continue;
    const { orderid, client_orderid: clientOrderId } = attempt.body;
    // One id typed alone (both typed name an order, never a plan).
    const term =
      orderid === undefined ? clientOrderId : clientOrderId === undefined ? orderid : undefined;
    if (term !== undefined) terms.add(term);
  }
  for (const term of terms) {
    const page = await client.query(subscriptionListQueryOptions({ q: term, limit: 1 }));
    const [plan] = page.items;
    if (plan !== undefined) return plan.id;
  }
  return null;
}

/**
 * Runs every attempt: each order found is a candidate (several from one client_orderid on several
 * endpoints, the BFF's 409). One order is opened; more are offered to choose from, never one of
 * them picked silently. A Paydesk id found opens at once. An order that is a payout's not yet sent
 * (the BFF answers with the payout, recording nothing) opens the payout when nothing else matched,
 * else it is offered beside the orders.
 */
async function lookUp(attempts: LookupAttempt[], client: QueryClient): Promise<LookupOutcome> {
  const found = new Map<string, LookupCandidate>();
  const details = new Map<string, TransactionDetail>();
  const payouts = new Map<string, PayoutOrder>();
  /** the orderids found (an order's or a payout's) */
  const orderids = new Set<string>();
  let needsClientOrderId = false;
  for (const attempt of attempts) {
    try {
      const asClientOrderId = attempt.kind === 'gateway' ? attempt.body.client_orderid : undefined;
      if (
        asClientOrderId !== undefined &&
        attempt.kind === 'gateway' &&
        attempt.body.orderid === undefined &&
        orderids.has(asClientOrderId)
      ) {
        // Digits found as an orderid already: another order with them as its client_orderid is
        // looked for among the orders Paydesk knows (no second gateway call, no refused audit row).
        const page = await client.query(
          transactionListQueryOptions(TransactionListQuerySchema.parse({ q: asClientOrderId })),
        );
        for (const t of page.items)
          if (t.clientOrderId === asClientOrderId && !found.has(t.orderid))
            found.set(t.orderid, candidateOf(t));
        continue;
      }
      if (attempt.kind === 'id') {
        try {
          return {
            kind: 'open',
            detail: await client.query(transactionDetailQueryOptions(attempt.id)),
          };
        } catch (error) {
          if (!isApiError(error) || error.code !== 'NOT_FOUND') throw error;
          // No order's id: perhaps a payout's, a payment link's or a subscription's.
          const path = await otherRecordPath(attempt.id, client);
          if (path !== null) return { kind: 'record', path };
          throw error;
        }
      }
      const reply = await lookupTransaction(attempt.body);
      // A payout not yet sent is the reply's only field; an order (a payout's too, whose detail
      // may name its payout) has its orderid.
      if (!('orderid' in reply)) {
        payouts.set(reply.payout.id, reply.payout);
        if (reply.payout.orderid !== null) orderids.add(reply.payout.orderid);
        continue;
      }
      details.set(reply.orderid, reply);
      orderids.add(reply.orderid);
      found.set(reply.orderid, candidateOf(reply));
    } catch (error) {
      if (!isApiError(error)) throw error;
      const conflict = LookupConflictDetailsSchema.safeParse(error.details);
      if (error.code === 'CONFLICT' && conflict.success) {
        for (const c of conflict.data.candidates)
          if (!found.has(c.orderid)) found.set(c.orderid, c);
        continue;
      }
      // Not found this way (or unknown to Paydesk without its client_orderid): try the next way.
      const needs =
        error.code === 'VALIDATION_FAILED' &&
        (error.details?.fields ?? []).some((f) => f.path === 'client_orderid');
      if (error.code !== 'NOT_FOUND' && !needs) throw error;
      needsClientOrderId ||= needs;
    }
  }
  const candidates = [...found.values()];
  const payoutsFound = [...payouts.values()];
  const [only] = candidates;
  const detail = only === undefined ? undefined : details.get(only.orderid);
  if (payoutsFound.length === 0 && candidates.length === 1 && detail !== undefined)
    return { kind: 'open', detail };
  const [payout] = payoutsFound;
  if (candidates.length === 0 && payoutsFound.length === 1 && payout !== undefined)
    return { kind: 'payout', payout };
  if (candidates.length + payoutsFound.length > 0)
    return { kind: 'choose', candidates, payouts: payoutsFound };
  const plan = await planNamed(attempts, client);
  if (plan !== null) return { kind: 'record', path: `/subscriptions/${encodeURIComponent(plan)}` };
  throw new NotFound(needsClientOrderId);
}

/**
 * The dialog's field a server refusal names, with the server's message as a sentence
 * (`sentenceOf`): `endpointId` is the
 * Endpoint field, `orderid` the first one, `client_orderid` the second one when it was filled (else
 * the first field was asked as a client_orderid). Null when the refusal names none of them.
 */
export function serverProblem(
  error: unknown,
  asked: LookupInput,
): { field: Field; problem: string } | null {
  if (!isApiError(error)) return null;
  for (const { path, message, rule } of error.fieldErrors) {
    const field: Field | undefined =
      path === 'endpointId'
        ? 'endpointId'
        : path === 'orderid'
          ? 'term'
          : path === 'client_orderid'
            ? asked.clientOrderId.trim() === ''
              ? 'term'
              : 'clientOrderId'
            : undefined;
    if (field !== undefined) return { field, problem: sentenceOf(path, message, rule) };
  }
  return null;
}

/**
 * Whether a term the gateway did not find may be a card's last four, which the transactions list
 * finds (the list searches what Paydesk has learned; the gateway only by order). An e-mail address
 * or a masked card never reaches the gateway (`lookupAttempts`: `search`).
 */
function listSearches(term: string): boolean {
  return /^\d{4}$/.test(term.trim());
}

/** The id support asked for: the first field's, or the client_orderid given alone. */
function askedTerm(asked: LookupInput): string {
  const term = asked.term.trim();
  return term === '' ? asked.clientOrderId.trim() : term;
}

/** The first field's hint: what Look up does with what is typed there. */
function termHint(term: string, clientOrderId: string): string {
  const kind = clientOrderId.trim() === '' ? searchTermKind(term.trim()) : null;
  if (kind === 'email')
    return 'An e-mail address is no order id: Look up searches the transactions for it (the gateway is not asked).';
  if (kind === 'card')
    return 'A card is no order id: Look up searches the transactions for it (the gateway is not asked).';
  return 'A Paydesk id works too (an order’s, a payout’s, a payment link’s or a subscription’s). Asks the gateway for the current status and opens the order. An e-mail address or a masked card searches the transactions instead.';
}

/**
 * What was not found. With an endpoint chosen, only that endpoint was asked: the order may be on
 * another, so the message says so rather than "the gateway knows no order".
 */
function notFoundMessage(input: LookupInput, needsClientOrderId: boolean): string {
  const term = input.term.trim();
  const clientOrderId = input.clientOrderId.trim();
  const endpointId = input.endpointId.trim();
  if (needsClientOrderId)
    return `Paydesk has no order “${term}”, and the gateway has none with the client order id “${term}”. To ask the gateway for order “${term}”, add its client order id below: the gateway finds an order by its orderid only together with its client order id.`;
  const gateway = endpointId === '' ? 'The gateway knows' : `Endpoint ${endpointId} has`;
  const onlyThere =
    endpointId === ''
      ? ''
      : ` Only endpoint ${endpointId} was asked: the order may be on another endpoint. Leave the Endpoint empty to ask every endpoint.`;
  if (clientOrderId !== '')
    return term === ''
      ? `${gateway} no order with client order id “${clientOrderId}”.${onlyThere}`
      : `${gateway} no order “${term}” with client order id “${clientOrderId}”.${onlyThere}`;
  if (TRANSACTION_ID_PATTERN.test(term))
    return endpointId === ''
      ? `Paydesk knows no order, payout, payment link or subscription with the id “${term}”, and the gateway knows no order with that client order id.`
      : `Paydesk knows no order, payout, payment link or subscription with the id “${term}”, and endpoint ${endpointId} has no order with that client order id.${onlyThere}`;
  return /^\d+$/.test(term)
    ? `${gateway} no order “${term}” as an orderid or a client order id.${onlyThere}`
    : `${gateway} no order “${term}” as a client order id.${onlyThere}`;
}

/**
 * Why the lookup failed: the BFF's own sentence (a gateway that did not answer is named by its
 * endpoint), except a stop of the server under way, whose 503 would read as a server problem.
 */
function failureMessage(error: unknown): string {
  if (isApiError(error) && error.code === 'SERVICE_UNAVAILABLE')
    return `This Paydesk server is stopping, so the lookup ended before it finished; nothing was recorded. Look up again in a moment${error.requestId === undefined ? '' : ` (request ${error.requestId})`}.`;
  return describeError(error);
}

function CandidateList({
  candidates,
  onChoose,
  disabled,
}: {
  candidates: LookupCandidate[];
  onChoose: (candidate: LookupCandidate) => void;
  disabled: boolean;
}) {
  const headingId = useId();
  return (
    <div>
      <Typography id={headingId} variant="body2" sx={{ mb: 1 }}>
        {candidates.length === 1
          ? 'One order matches'
          : `${String(candidates.length)} orders match`}
        . Choose the one to open (Paydesk asks the gateway for its status):
      </Typography>
      <List dense aria-labelledby={headingId} sx={{ border: 1, borderColor: 'divider' }}>
        {candidates.map((c) => (
          <ListItemButton
            key={c.orderid}
            disabled={disabled}
            onClick={() => {
              onChoose(c);
            }}
          >
            <ListItemText
              primary={`Order ${c.orderid} · endpoint ${c.endpointId} · ${formatMoney(c.amount, c.currency)}`}
              secondary={`Client order id ${c.clientOrderId} · ${TYPE_LABELS[c.type]} · ${STATUS_LOOK[c.status].label}${c.id === null ? ' · not in Paydesk yet' : ''}`}
            />
          </ListItemButton>
        ))}
      </List>
    </div>
  );
}

/**
 * Support's status check: asks the gateway now, records the answer, opens the order. `initialTerm`
 * fills the first field (the list's search that found nothing).
 */
export default function LookupDialog({
  onClose,
  initialTerm = '',
}: {
  onClose: () => void;
  initialTerm?: string;
}) {
  const titleId = useId();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [input, setInput] = useState<LookupInput>({
    term: initialTerm,
    clientOrderId: '',
    endpointId: '',
  });
  const [touched, setTouched] = useState(false);
  const [choice, setChoice] = useState<{
    candidates: LookupCandidate[];
    payouts: PayoutOrder[];
  } | null>(null);
  const termRef = useRef<HTMLInputElement>(null);
  const clientOrderIdRef = useRef<HTMLInputElement>(null);
  const endpointIdRef = useRef<HTMLInputElement>(null);
  const focus = (field: Field) => {
    const ref =
      field === 'term' ? termRef : field === 'clientOrderId' ? clientOrderIdRef : endpointIdRef;
    ref.current?.focus();
  };
  const plan = lookupAttempts(input);

  const mutation = useMutation({
    // `asked`: the fields as they were sent, for the message (they may be edited meanwhile).
    mutationFn: ({ attempts }: { attempts: LookupAttempt[]; asked: LookupInput }) =>
      lookUp(attempts, client),
    onMutate: () => {
      setChoice(null);
    },
    onSuccess: async (outcome) => {
      if (outcome.kind === 'choose') {
        setChoice({ candidates: outcome.candidates, payouts: outcome.payouts });
        return;
      }
      if (outcome.kind === 'record') {
        onClose();
        await navigate(outcome.path);
        return;
      }
      if (outcome.kind === 'payout') {
        // The order is a payout's, not a transaction: its page is where it is followed.
        onClose();
        await navigate(`/payouts/${encodeURIComponent(outcome.payout.id)}`);
        return;
      }
      client.setQueryData(transactionKeys.detail(outcome.detail.id), outcome.detail);
      onClose();
      await navigate(`/transactions/${encodeURIComponent(outcome.detail.id)}`);
    },
    // Not found (or refused): the keyboard is back in the field to correct or complete.
    onError: (error, { asked }) => {
      focus(
        error instanceof NotFound && error.needsClientOrderId
          ? 'clientOrderId'
          : (serverProblem(error, asked)?.field ?? 'term'),
      );
    },
  });

  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    setTouched(true);
    if ('attempts' in plan) mutation.mutate({ attempts: plan.attempts, asked: input });
    else if ('search' in plan) {
      // No order's id: the transactions list finds it among the orders Paydesk has learned.
      onClose();
      void navigate(`/transactions?q=${encodeURIComponent(plan.search)}`);
    } else {
      // A new attempt: what the last one found (or did not) is no answer to it. (A lookup still
      // under way keeps going: its answer is the one to show.)
      if (!mutation.isPending) mutation.reset();
      focus(plan.field);
    }
  };
  const choose = (c: LookupCandidate) => {
    const body = LookupBodySchema.parse({
      orderid: c.orderid,
      client_orderid: c.clientOrderId,
      endpointId: c.endpointId,
    });
    mutation.mutate({ attempts: [{ kind: 'gateway', body }], asked: input });
  };
  const change = (field: Field) => (event: { target: { value: string } }) => {
    setInput((current) => ({ ...current, [field]: event.target.value }));
    setChoice(null);
  };
  const error = mutation.error;
  const notFound = error instanceof NotFound;
  // The last attempt's message is about what was asked then: once a field is edited it no longer
  // applies and goes (a refused field's own message goes with that field, below). Asked for the
  // client_orderid, typing it is what the message asked for: it stays until the next attempt.
  const asked = mutation.variables?.asked;
  const askedFor = notFound && error.needsClientOrderId ? 'clientOrderId' : null;
  const stale =
    asked !== undefined &&
    (['term', 'clientOrderId', 'endpointId'] as const).some(
      (field) => field !== askedFor && input[field] !== asked[field],
    );
  // A field the server refused shows its message until that field is changed.
  const refused = mutation.isError ? serverProblem(error, mutation.variables.asked) : null;
  const serverRefusal =
    refused !== null && input[refused.field] === mutation.variables?.asked[refused.field]
      ? refused
      : null;
  // A card number is said at once, before anything could be sent; other problems on Look up.
  const cardLastFour = 'field' in plan ? plan.lastFour : undefined;
  const problem =
    ((touched || cardLastFour !== undefined) && 'field' in plan ? plan : null) ?? serverRefusal;
  const searchList = (q: string) => {
    onClose();
    void navigate(`/transactions?q=${encodeURIComponent(q)}`);
  };
  /** Asks again with the Endpoint left empty: every configured endpoint. */
  const everyEndpoint = (asked: LookupInput) => {
    const next = { ...asked, endpointId: '' };
    setInput(next);
    const again = lookupAttempts(next);
    if ('attempts' in again) mutation.mutate({ attempts: again.attempts, asked: next });
  };
  /** A field's value, its problem (else `hint`) and its read-only state while asking. */
  const fieldProps = (field: Field, label: string, hint: string) => ({
    label,
    value: input[field],
    onChange: change(field),
    autoComplete: 'off',
    // Read-only, not disabled, while asking: a disabled field would lose the focus.
    'aria-busy': mutation.isPending,
    error: problem?.field === field,
    helperText: problem?.field === field ? problem.problem : hint,
    slotProps: {
      htmlInput: {
        spellCheck: false,
        readOnly: mutation.isPending,
        ...(field === 'endpointId' ? { inputMode: 'numeric' as const } : {}),
      },
    },
  });

  return (
    <Dialog
      open
      onClose={mutation.isPending ? undefined : onClose}
      aria-labelledby={titleId}
      fullWidth
      maxWidth="sm"
    >
      <form noValidate aria-labelledby={titleId} onSubmit={submit}>
        <DialogTitle id={titleId}>Look up an order</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {cardLastFour === undefined ? null : (
              <Alert severity="warning">
                {cardNumberNotice(cardLastFour)}
                <Button
                  size="small"
                  sx={{ display: 'block', mt: 1, px: 0 }}
                  onClick={() => {
                    searchList(cardLastFour);
                  }}
                >
                  Search the transactions for “{cardLastFour}”
                </Button>
              </Alert>
            )}
            {cardLastFour === undefined && mutation.isError && refused === null && !stale ? (
              <Alert severity={notFound ? 'info' : 'error'}>
                {notFound
                  ? notFoundMessage(mutation.variables.asked, error.needsClientOrderId)
                  : failureMessage(error)}
                {notFound &&
                !error.needsClientOrderId &&
                mutation.variables.asked.endpointId.trim() !== '' ? (
                  <Button
                    size="small"
                    sx={{ display: 'block', mt: 1, px: 0 }}
                    disabled={mutation.isPending}
                    onClick={() => {
                      everyEndpoint(mutation.variables.asked);
                    }}
                  >
                    Look up on every endpoint
                  </Button>
                ) : null}
                {notFound && listSearches(mutation.variables.asked.term) ? (
                  <Button
                    size="small"
                    sx={{ display: 'block', mt: 1, px: 0 }}
                    onClick={() => {
                      searchList(mutation.variables.asked.term.trim());
                    }}
                  >
                    Search the transactions for “{mutation.variables.asked.term.trim()}”
                  </Button>
                ) : null}
              </Alert>
            ) : null}
            {choice === null ? null : (
              <PayoutOrderNotice
                term={askedTerm(mutation.variables?.asked ?? input)}
                payouts={choice.payouts}
                onOpen={onClose}
              />
            )}
            {choice === null || choice.candidates.length === 0 ? null : (
              <CandidateList
                candidates={choice.candidates}
                onChoose={choose}
                disabled={mutation.isPending}
              />
            )}
            <TextField
              {...fieldProps(
                'term',
                'Orderid or client order id',
                termHint(input.term, input.clientOrderId),
              )}
              inputRef={termRef}
              autoFocus
            />
            <TextField
              {...fieldProps(
                'clientOrderId',
                'Client order id',
                'For an orderid Paydesk has not learned: the gateway finds an order by its orderid only together with its client order id.',
              )}
              inputRef={clientOrderIdRef}
            />
            <TextField
              {...fieldProps(
                'endpointId',
                'Endpoint (optional)',
                'Without one, every configured endpoint is asked.',
              )}
              inputRef={endpointIdRef}
            />
          </Stack>
          <GatewayWaitNote waiting={mutation.isPending} words="lookup" />
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={mutation.isPending}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" loading={mutation.isPending}>
            Look up
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
