import CallMadeOutlined from '@mui/icons-material/CallMadeOutlined';
import CheckCircleOutline from '@mui/icons-material/CheckCircleOutlined';
import ErrorOutline from '@mui/icons-material/ErrorOutlined';
import HelpOutline from '@mui/icons-material/HelpOutlined';
import HighlightOff from '@mui/icons-material/HighlightOffOutlined';
import HourglassEmpty from '@mui/icons-material/HourglassEmptyOutlined';
import LockClockOutlined from '@mui/icons-material/LockClockOutlined';
import PaidOutlined from '@mui/icons-material/PaidOutlined';
import ReportProblemOutlined from '@mui/icons-material/ReportProblemOutlined';
import Undo from '@mui/icons-material/Undo';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import { isPartlyCaptured } from '@paydesk/shared/domain';
import {
  payoutMoneyOf,
  type TransactionAmounts,
  type TransactionStatus,
  type TransactionSummary,
} from '@paydesk/shared/api';
import type { ReactElement } from 'react';
import { toMinor } from '../../../lib/money';
import { STAGE_LABELS } from './labels';

interface Look {
  label: string;
  color: 'success' | 'error' | 'warning' | 'info' | 'default';
  icon: ReactElement;
  variant: 'filled' | 'outlined';
}

// Colour and text (and an icon): the status never depends on seeing colour.
export const STATUS_LOOK: Record<TransactionStatus, Look> = {
  approved: {
    label: 'Approved',
    color: 'success',
    icon: <CheckCircleOutline />,
    variant: 'outlined',
  },
  processing: { label: 'Processing', color: 'info', icon: <HourglassEmpty />, variant: 'outlined' },
  declined: { label: 'Declined', color: 'error', icon: <HighlightOff />, variant: 'outlined' },
  error: { label: 'Error', color: 'error', icon: <ErrorOutline />, variant: 'outlined' },
  filtered: { label: 'Filtered', color: 'default', icon: <HighlightOff />, variant: 'outlined' },
  // Paydesk does not know the outcome: it needs attention, so it stands out.
  unknown: { label: 'Unknown outcome', color: 'warning', icon: <HelpOutline />, variant: 'filled' },
};

export function StatusChip({ status }: { status: TransactionStatus }) {
  const look = STATUS_LOOK[status];
  return (
    <Chip
      size="small"
      icon={look.icon}
      label={look.label}
      color={look.color}
      variant={look.variant}
      title={
        status === 'unknown'
          ? 'Paydesk does not know the outcome yet (the gateway’s answer was an error or did not come); it is asking the gateway for the status.'
          : undefined
      }
    />
  );
}

export function DriftChip() {
  return (
    <Chip
      size="small"
      icon={<ReportProblemOutlined />}
      label="Drift"
      color="warning"
      variant="filled"
      title="The gateway contradicted Paydesk’s record; the order is flagged for review (its page says how)."
    />
  );
}

/**
 * Stages that undo an approved order: its status stays the gateway's `approved` (the order was
 * approved, then voided), so the stage must be as visible as the status.
 */
const UNDONE_LOOK: Record<string, { label: string; title: string }> = {
  voided: { label: STAGE_LABELS.voided, title: 'Voided before settlement: no money moved.' },
  hold_cancelled: {
    label: STAGE_LABELS.hold_cancelled,
    title: 'The hold was cancelled: nothing was captured.',
  },
};

/**
 * Stages of an approved order whose money went back in part or in full: said beside the status,
 * in its list row and in its page's header alike (the page has the amounts in full).
 */
const RETURNED_LOOK: Record<string, { label: string; title: string }> = {
  partially_returned: {
    label: STAGE_LABELS.partially_returned,
    title: 'Part of the captured money was returned to the customer; the order shows how much.',
  },
  returned: {
    label: STAGE_LABELS.returned,
    title: 'The captured money was returned to the customer in full.',
  },
};

/**
 * What the chips are said of: a list row (`partlyCaptured` given by the BFF) or an order's page
 * (`amounts`, from which the same rule, `isPartlyCaptured`, reads it).
 */
export type ChipsOrder = Pick<TransactionSummary, 'status' | 'stage' | 'drift'> &
  Partial<Pick<TransactionSummary, 'type' | 'partlyCaptured'>> & {
    amounts?: Pick<TransactionAmounts, 'authorized' | 'captured'> | undefined;
  };

/**
 * Whether only part of a preauth's hold was captured: from the order's amounts (its page), else
 * as its list row says; undefined when neither says.
 */
function partlyCapturedOf(order: ChipsOrder): boolean | undefined {
  if (order.amounts === undefined) return order.partlyCaptured;
  return isPartlyCaptured({
    type: order.type ?? 'unknown',
    authorizedMinor: toMinor(order.amounts.authorized) ?? 0n,
    capturedMinor: toMinor(order.amounts.captured) ?? 0n,
  });
}

/** The hold chip of a preauth of which only part was captured (a payment link's chip says it too). */
export const PARTLY_CAPTURED = 'Partly captured';

/**
 * Where an approved preauth's money stands, which its status alone (`approved`, whether the funds
 * are only held or were taken) does not say: held (stage `authorized`), captured in part (whatever
 * returns followed), or captured in full (`captured`, and `settled` after it; once money went back,
 * that chip says so instead). A sale's approval is its capture: it needs no words.
 *
 * An undone order (`voided`, `hold_cancelled`) has no hold chip: its undone chip says where the
 * money stands. A void of a partly captured preauth takes back the captured part before settlement
 * (the rest of the hold was released at the capture), so no money moved; "Partly captured" beside
 * "Voided" read as money taken and given back at once (QA), which a finance person would book
 * wrongly. The order's page still shows what was captured, voided and released, in its amounts.
 */
export function holdLook(
  order: ChipsOrder,
): { label: string; title: string; captured: boolean } | undefined {
  if (order.type !== 'preauth' || order.status !== 'approved' || order.stage === null)
    return undefined;
  if (Object.hasOwn(UNDONE_LOOK, order.stage)) return undefined;
  if (order.stage === 'authorized') {
    return {
      label: 'Held',
      title: 'Authorized: the amount is held on the customer’s card; nothing was captured yet.',
      captured: false,
    };
  }
  const partly = partlyCapturedOf(order);
  if (partly === true) {
    return {
      label: PARTLY_CAPTURED,
      title: 'Part of the hold was captured; the rest was released to the customer.',
      captured: true,
    };
  }
  if (order.stage !== 'captured' && order.stage !== 'settled') return undefined;
  return partly === undefined
    ? {
        label: 'Captured',
        title: 'The hold was captured; the order shows whether in full or in part.',
        captured: true,
      }
    : { label: 'Captured', title: 'The whole hold was captured.', captured: true };
}

/**
 * Where a payout order's money stands, which its `approved` alone (the same word as a sale's, money
 * in) does not say: paid out to the payee, or only checked (nothing sent). Pending and failed
 * payouts say so by their status.
 */
export function payoutLook(order: ChipsOrder): { label: string; title: string } | undefined {
  if (order.type === undefined) return undefined;
  switch (payoutMoneyOf({ type: order.type, status: order.status, stage: order.stage })) {
    case 'paid':
      return { label: 'Paid out', title: 'Money out: the amount was sent to the payee.' };
    case 'not_sent':
      return {
        label: 'Not paid out',
        title: 'The gateway checked the payee’s details, but no money was sent.',
      };
    default:
      return undefined;
  }
}

/**
 * An order's status chips, the same in its list row and its page's header: the status, an
 * approved preauth's hold (`holdLook`: held, partly or wholly captured), a payout's money out
 * (`payoutLook`), the stage when it undid
 * the order or sent money back, and the drift flag when the gateway contradicted Paydesk's record.
 */
export function TransactionStatusChips({ order }: { order: ChipsOrder }) {
  const { status, stage, drift } = order;
  const undone = stage === null ? undefined : (UNDONE_LOOK[stage] ?? RETURNED_LOOK[stage]);
  const hold = holdLook(order);
  const payout = payoutLook(order);
  return (
    <Stack direction="row" spacing={0.5} sx={{ flexWrap: 'wrap' }}>
      <StatusChip status={status} />
      {payout === undefined ? null : (
        <Chip
          size="small"
          icon={<CallMadeOutlined />}
          label={payout.label}
          color="default"
          variant="outlined"
          title={payout.title}
        />
      )}
      {hold === undefined ? null : (
        <Chip
          size="small"
          icon={hold.captured ? <PaidOutlined /> : <LockClockOutlined />}
          label={hold.label}
          color="default"
          variant="outlined"
          title={hold.title}
        />
      )}
      {undone === undefined ? null : (
        <Chip
          size="small"
          icon={<Undo />}
          label={undone.label}
          color="default"
          variant="filled"
          title={undone.title}
        />
      )}
      {drift ? <DriftChip /> : null}
    </Stack>
  );
}
