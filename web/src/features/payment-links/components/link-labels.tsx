import Chip from '@mui/material/Chip';
import {
  PAYMENT_LINK_NOT_CREATED,
  PAYMENT_LINK_PAGE_LOST,
  type PaymentLink,
  type PaymentLinkKind,
  type PaymentLinkOrder,
  type PaymentLinkState,
} from '@paydesk/shared/api';
import { isPartlyCaptured, orderStateWords, stageWords } from '@paydesk/shared/domain';
import { toMinor } from '../../../lib/money';
import { STAGE_LABELS } from '../../transactions/components/labels';
import { PARTLY_CAPTURED } from '../../transactions/components/status-chip';

export const KIND_LABELS: Record<PaymentLinkKind, string> = {
  'sale-form': 'Sale form',
  'preauth-form': 'Preauthorization form',
  'payment-form': 'Payment form',
  'account-verification-form': 'Account verification form',
  'payout-form': 'Payout form',
};

const LOOK: Record<
  PaymentLinkState,
  { label: string; color: 'success' | 'error' | 'warning' | 'info' | 'default' }
> = {
  pending_approval: { label: 'Awaiting approval', color: 'warning' },
  sending: { label: 'Sending', color: 'info' },
  sent: { label: 'Ready to share', color: 'success' },
  unknown: { label: 'Unknown outcome', color: 'warning' },
  failed: { label: 'Failed', color: 'error' },
  rejected: { label: 'Rejected', color: 'default' },
  expired: { label: 'Expired', color: 'default' },
};

type Look = (typeof LOOK)[PaymentLinkState];

/**
 * Whether the link's order is a preauth of which only part of the hold was captured, by the rule
 * its own page's chips read it with (`isPartlyCaptured`, from its money); false when its money is
 * not known (older links).
 */
function partlyCaptured(kind: PaymentLinkKind, order: PaymentLinkOrder): boolean {
  if (kind !== 'preauth-form' || order.money === undefined) return false;
  return isPartlyCaptured({
    type: 'preauth',
    authorizedMinor: toMinor(order.money.authorized) ?? 0n,
    capturedMinor: toMinor(order.money.captured) ?? 0n,
  });
}

/**
 * The link's order's status and stage in words (`orderStateWords`), a preauth captured in part
 * said so, as its chip and its order's page say it: 'approved, partly captured', not 'approved,
 * captured'.
 */
export function linkOrderStateWords(kind: PaymentLinkKind, order: PaymentLinkOrder): string {
  return order.stage === 'captured' && partlyCaptured(kind, order)
    ? `${order.status}, partly captured`
    : orderStateWords(order.status, order.stage);
}

/** The link's order's stage in words beside its status ('partly returned', 'partly captured'). */
export function linkOrderStageWords(kind: PaymentLinkKind, order: PaymentLinkOrder): string | null {
  if (order.stage === null) return null;
  return order.stage === 'captured' && partlyCaptured(kind, order)
    ? 'partly captured'
    : stageWords(order.stage);
}

/** What came of an approved order afterwards (its stage): a hold captured or released, a refund. */
function laterLook(kind: PaymentLinkKind, order: PaymentLinkOrder): Look | null {
  const stage = order.stage;
  switch (stage) {
    // the order's own chip's words (QA: a voided preauth form's link said 'Hold released' beside
    // its order's 'Voided'; a hold released without a void is `hold_cancelled`)
    case 'voided':
    case 'hold_cancelled':
      return { label: STAGE_LABELS[stage], color: 'default' };
    case 'returned':
      return { label: STAGE_LABELS.returned, color: 'default' };
    case 'partially_returned':
      // the order's own chip's words (it said 'Partially returned' beside the order's 'Partly')
      return { label: STAGE_LABELS.partially_returned, color: 'success' };
    case 'captured':
    case 'settled':
      // The order's own hold chip's words (QA: a preauth captured for $60 of its $100 said
      // 'Captured' here and 'Partly captured' on its order).
      if (kind !== 'preauth-form') return null;
      return {
        label: partlyCaptured(kind, order) ? PARTLY_CAPTURED : 'Captured',
        color: 'success',
      };
    default:
      return null;
  }
}

/**
 * What a sent link's order says, including what happened to it afterwards (a captured hold, a
 * refund): once the customer used the page, the link is no longer to share.
 */
function orderLook(kind: PaymentLinkKind, order: PaymentLinkOrder): Look {
  switch (order.status) {
    case 'approved':
      return (
        laterLook(kind, order) ?? {
          label:
            kind === 'preauth-form'
              ? 'Authorized'
              : kind === 'account-verification-form'
                ? 'Verified'
                : kind === 'payout-form'
                  ? 'Paid out'
                  : 'Paid',
          color: 'success',
        }
      );
    case 'processing':
      return { label: 'Customer paying', color: 'info' };
    case 'unknown':
      return { label: 'Outcome unknown', color: 'warning' };
    case 'declined':
      return { label: 'Declined', color: 'error' };
    case 'filtered':
    case 'error':
      return { label: 'Not paid', color: 'error' };
  }
}

/**
 * A sent link whose order the gateway showed after its create's reply was lost, its page address
 * lost with it (the BFF's `PAYMENT_LINK_PAGE_LOST`): nobody can be sent to its page, so it is not
 * to share; its order's page was not used (once it is, the order says more).
 */
export function pageLost(link: Pick<PaymentLink, 'state' | 'order' | 'errorCode'>): boolean {
  return link.state === 'sent' && link.order === null && link.errorCode === PAYMENT_LINK_PAGE_LOST;
}

/**
 * A link whose create went unanswered and whose order the gateway still did not show after the
 * safe delay (the BFF's `PAYMENT_LINK_NOT_CREATED`): never created, it may be made again.
 */
export function notCreated(link: Pick<PaymentLink, 'state' | 'errorCode'>): boolean {
  return link.state === 'failed' && link.errorCode === PAYMENT_LINK_NOT_CREATED;
}

/**
 * A link rejected by its own creator (the BFF's `withdrawn`) is said to be withdrawn; one whose
 * create went unanswered says what Paydesk learned of it since (`pageLost`, `notCreated`).
 */
export function LinkStateChip({
  link,
}: {
  link: Pick<PaymentLink, 'state' | 'kind' | 'order' | 'withdrawn' | 'errorCode'>;
}) {
  const look: Look =
    link.state === 'sent' && link.order !== null
      ? orderLook(link.kind, link.order)
      : pageLost(link)
        ? { label: 'Page address lost', color: 'warning' }
        : notCreated(link)
          ? { label: 'Not created', color: 'error' }
          : link.state === 'rejected' && link.withdrawn
            ? { ...LOOK.rejected, label: 'Withdrawn' }
            : LOOK[link.state];
  return <Chip size="small" variant="outlined" color={look.color} label={look.label} />;
}

/**
 * Whether the customer (payee) used the page and its order ended: the page cannot be used again,
 * so its address is no longer to share. An order still processing (or unknown) may yet be paid.
 */
export function pageUsedUp(link: Pick<PaymentLink, 'order'>): boolean {
  return (
    link.order !== null && link.order.status !== 'processing' && link.order.status !== 'unknown'
  );
}

/**
 * A sent payout-form whose page address the BFF withholds from this viewer: it pays whoever fills
 * it in, so only its creator and its approver see it and send it to the payee.
 */
export function pageWithheld(
  link: Pick<PaymentLink, 'state' | 'kind' | 'redirectUrl' | 'order' | 'errorCode'>,
): boolean {
  return (
    link.state === 'sent' &&
    link.kind === 'payout-form' &&
    link.redirectUrl === null &&
    !pageLost(link)
  );
}

/** Who may send a payout-form's page address to the payee: its creator and its approver. */
export function pageHolders(link: Pick<PaymentLink, 'createdBy' | 'decidedBy'>): string {
  const creator = `${link.createdBy.email} (who created it)`;
  return link.decidedBy === null
    ? creator
    : `${creator} and ${link.decidedBy.email} (who approved it)`;
}

/** The state labels, for the audit log: the same words as the chip. */
export { LOOK as LINK_STATE_LOOK };
