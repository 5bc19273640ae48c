import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { TransactionDetail } from '@paydesk/shared/api';
import { voidedMinor } from '@paydesk/shared/domain';
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
          <Typography
            component="dd"
            variant="body2"
            sx={{ m: 0, minWidth: 0, overflowWrap: 'anywhere' }}
          >
            {value}
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

export function AmountsPanel({ detail }: { detail: TransactionDetail }) {
  const { amounts, currency } = detail;
  const money = (value: string) => (
    <span style={{ fontVariantNumeric: 'tabular-nums' }}>{formatMoney(value, currency)}</span>
  );
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
  // A preauth captured in part: the rest of the hold was released when the capture was made.
  const authorized = toMinor(amounts.authorized) ?? 0n;
  const captured = toMinor(amounts.captured) ?? 0n;
  if (
    detail.type === 'preauth' &&
    detail.stage !== 'voided' &&
    captured > 0n &&
    captured < authorized
  ) {
    rows.push(['Hold released', money(fromMinor(authorized - captured))]);
  }
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
