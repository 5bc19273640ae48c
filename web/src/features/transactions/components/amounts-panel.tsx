import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import {
  FAILED_STATUSES,
  payoutMoneyOf,
  type TransactionDetail,
  type TransactionPayout,
} from '@paydesk/shared/api';
import { isPartlyCaptured, voidedMinor } from '@paydesk/shared/domain';
import { BreakableText } from '../../../components/breakable-text';
import { formatMoney } from '../../../lib/format';
import { fromMinor, toMinor } from '../../../lib/money';

/** Label/value pairs as a description list (screen readers read them as pairs). */
/** One fact: its label and its value. */
export type FactRow = [string, React.ReactNode];

export function Facts({ rows }: { rows: FactRow[] }) {
  return (
    <Box
      component="dl"
      sx={{
        display: 'grid',
        // minmax(0, …): a long unbroken value (an e-mail, an address) wraps instead of widening
        // the page past a phone's screen; there a long label wraps too (at most 35% of the width),
        // so that a value that cannot break (a date and time) still fits beside it.
        gridTemplateColumns: {
          xs: 'fit-content(35%) minmax(0, 1fr)',
          sm: 'minmax(120px, max-content) minmax(0, 1fr)',
        },
        columnGap: 2,
        rowGap: 0.75,
        m: 0,
      }}
    >
      {rows.map(([label, value]) => (
        <Box key={label} sx={{ display: 'contents' }}>
          <Typography component="dt" variant="body2" color="text.secondary">
            {label}
          </Typography>
          {/* A long word breaks where a reader expects it (BreakableText: an e-mail after its "@",
              before a "."); only a piece that alone is wider than the column breaks anywhere, as
              the last resort that keeps the page from scrolling sideways. */}
          <Typography
            component="dd"
            variant="body2"
            sx={{ m: 0, minWidth: 0, overflowWrap: 'anywhere' }}
          >
            {typeof value === 'string' ? <BreakableText text={value} /> : value}
          </Typography>
        </Box>
      ))}
    </Box>
  );
}

export function Panel({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Paper variant="outlined" sx={{ p: 2 }} component="section" aria-label={title}>
      <Typography variant="h2" sx={{ mb: 1.5 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

/**
 * What a void took back, on a voided order: what was captured (a sale), or what was held (a
 * preauth); null on an order that is not voided.
 */
export function voidedAmount(detail: TransactionDetail): string | null {
  const voided = voidedMinor({
    stage: detail.stage,
    authorizedMinor: toMinor(detail.amounts.authorized) ?? 0n,
    capturedMinor: toMinor(detail.amounts.captured) ?? 0n,
  });
  return voided === null ? null : fromMinor(voided);
}

const DESTINATION_WORDS: Record<TransactionPayout['destination']['kind'], string> = {
  card: 'the card',
  bank: 'the bank account',
  ewallet: 'the e-wallet',
  phone: 'the phone',
};

/** How a payout failed, after "Nothing was paid out: ". */
const FAILED_WORDS: Partial<Record<TransactionDetail['status'], string>> = {
  declined: 'the gateway declined it',
  filtered: 'the gateway’s filters stopped it',
  error: 'it ended in error at the gateway',
};

/** Where a payout's money goes: the payout's destination (masked), else the order's card. */
function destinationText(detail: TransactionDetail): string | null {
  const destination = detail.paydeskPayout?.destination;
  if (destination) return `${DESTINATION_WORDS[destination.kind]} ${destination.masked}`;
  return detail.card ? `the card ${detail.card.masked}` : null;
}

/**
 * A payout's order (money out): what was paid out and to where, or why nothing was (pending,
 * failed, only checked). Authorized, captured and returned are a charge's and never apply to it.
 */
function payoutRows(
  detail: TransactionDetail,
  money: (value: string) => React.ReactNode,
): FactRow[] {
  const { amounts, currency } = detail;
  const state = payoutMoneyOf(detail);
  const to = destinationText(detail);
  const amount = formatMoney(amounts.amount, currency);
  let paidOut: React.ReactNode;
  switch (state) {
    case 'paid':
      paidOut = (
        <>
          <strong>{formatMoney(amounts.paidOut ?? amounts.amount, currency)}</strong>
          {to === null ? null : ` to ${to}`}
        </>
      );
      break;
    case 'pending':
      paidOut =
        detail.status === 'unknown'
          ? `Not known yet: the reply to the payout was lost; Paydesk confirms it with the gateway’s status before anything is sent again.`
          : `Not yet: ${amount} is on its way${to === null ? '' : ` to ${to}`}; the gateway’s final status follows.`;
      break;
    case 'failed':
      paidOut = `Nothing was paid out: ${FAILED_WORDS[detail.status] ?? 'the payout failed'}.`;
      break;
    default:
      paidOut =
        detail.stage === 'registered'
          ? 'Nothing yet: the gateway checked the payee’s details; it is paid once a second ops user approves it.'
          : 'Nothing was paid out.';
  }
  return [
    ['Payout amount', money(amounts.amount)],
    ['Paid out', paidOut],
  ];
}

/**
 * Why a charge's order moved no money, when it did not (all its amounts zero): a declined, error
 * or filtered order, a card check (account verification, PAN eligibility), or one still awaiting
 * its outcome. Null: its amounts say what moved.
 */
function nothingCharged(detail: TransactionDetail): string | null {
  const { amounts } = detail;
  const zero = [
    amounts.authorized,
    amounts.captured,
    amounts.returned,
    amounts.reserved,
    amounts.remainingReturnable,
    amounts.remainingCapturable,
  ].every((value) => (toMinor(value) ?? 0n) === 0n);
  if (!zero || detail.stage === 'voided' || detail.stage === 'hold_cancelled') return null;
  if (FAILED_STATUSES.has(detail.status)) return 'Nothing was charged.';
  if (detail.type === 'account-verification' || detail.type === 'pan-eligibility')
    return 'Nothing was charged: a check of the card.';
  if (detail.status === 'processing') return 'Nothing yet: the gateway has not decided the order.';
  if (detail.status === 'unknown')
    return 'Not known yet: Paydesk confirms the order with the gateway’s status.';
  return null;
}

export function AmountsPanel({ detail }: { detail: TransactionDetail }) {
  const { amounts, currency } = detail;
  const money = (value: string) => (
    <span style={{ fontVariantNumeric: 'tabular-nums' }}>{formatMoney(value, currency)}</span>
  );
  if (payoutMoneyOf(detail) !== null) {
    return (
      <Panel title="Amounts">
        <Facts rows={payoutRows(detail, money)} />
      </Panel>
    );
  }
  const nothing = nothingCharged(detail);
  if (nothing !== null) {
    return (
      <Panel title="Amounts">
        <Facts
          rows={[
            ['Order amount', money(amounts.amount)],
            ['Charged', nothing],
          ]}
        />
      </Panel>
    );
  }
  const rows: [string, React.ReactNode][] = [
    ['Order amount', money(amounts.amount)],
    ['Authorized', money(amounts.authorized)],
    ['Captured', money(amounts.captured)],
    ['Returned', money(amounts.returned)],
  ];
  // A void takes back the whole order before settlement: what was captured (a sale) or held (a
  // preauth) is released, so nothing is left to return.
  const voided = voidedAmount(detail);
  if (voided !== null) rows.push(['Voided', money(voided)]);
  // A return on a preauth of which nothing was captured cancels the hold: the held amount is
  // released, nothing is returned (it is not money that went back).
  if (detail.stage === 'hold_cancelled') rows.push(['Hold released', money(amounts.authorized)]);
  // A preauth captured in part: the rest of the hold was released when the capture was made, and
  // stays released should the capture then be voided (Voided above is the captured part: with it,
  // the whole hold is accounted for).
  const authorized = toMinor(amounts.authorized) ?? 0n;
  const captured = toMinor(amounts.captured) ?? 0n;
  if (
    isPartlyCaptured({ type: detail.type, authorizedMinor: authorized, capturedMinor: captured })
  ) {
    rows.push(['Hold released', money(fromMinor(authorized - captured))]);
  }
  // What the order kept, the one figure to add up: captured less returned; nothing after a void
  // (the captured amount above stays what the gateway captured).
  if (amounts.net !== null) rows.push(['Net', money(amounts.net)]);
  // Returns sent whose outcome is not known yet: held against what is left to return.
  if (amounts.reserved !== '0.00') rows.push(['Returns awaiting outcome', money(amounts.reserved)]);
  rows.push([
    'Remaining returnable',
    <strong key="r">{formatMoney(amounts.remainingReturnable, currency)}</strong>,
  ]);
  if (amounts.remainingCapturable !== '0.00') {
    rows.push([
      'Remaining to capture',
      <strong key="c">{formatMoney(amounts.remainingCapturable, currency)}</strong>,
    ]);
  }
  return (
    <Panel title="Amounts">
      <Facts rows={rows} />
    </Panel>
  );
}
