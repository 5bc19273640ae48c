import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Operation, OperationState } from '@paydesk/shared/api';
import { DateTime } from '../../../components/date-time';
import { EmailText } from '../../../components/email-text';
import { formatMoney } from '../../../lib/format';
import { errorText } from '../../../lib/gateway-error';
import { Facts } from './amounts-panel';
import { OPERATION_STATE_LABELS, RETURN_REASON_LABELS, operationLabel } from './labels';
import { SidewaysTableContainer } from '../../../components/sideways-table-container';

const STATE_COLOR: Record<OperationState, 'success' | 'error' | 'warning' | 'info' | 'default'> = {
  approved: 'success',
  processing: 'info',
  sending: 'info',
  unknown: 'warning',
  declined: 'error',
  error: 'error',
  filtered: 'error',
  refused: 'error',
  not_applied: 'default',
  not_sent: 'default',
};

/**
 * What an operation's stored error says under its outcome. On an operation the gateway went on to
 * accept, the error is its lost reply (a timeout, a dropped connection, a 5xx), whose outcome
 * Paydesk then learned with `status`: said so, not as a failure.
 */
export function outcomeNote(operation: Operation): string {
  const error = errorText(operation.errorCode, operation.errorMessage);
  if (operation.state === 'approved')
    return `The reply was lost (${error}); the gateway’s status confirmed it.`;
  if (operation.state === 'processing')
    return `The reply was lost (${error}); the gateway’s status shows it in progress.`;
  return error;
}

function reasonText(operation: Operation): string | null {
  const code = operation.reasonCode;
  if (code === null) return operation.comment;
  const label =
    code in RETURN_REASON_LABELS
      ? RETURN_REASON_LABELS[code as keyof typeof RETURN_REASON_LABELS]
      : code;
  return operation.comment ? `${label}: ${operation.comment}` : label;
}

/** What the operation moved, or for a void that names none, what it took back. */
function amountText(operation: Operation, currency: string, voided: string | null): string {
  if (operation.amount !== null) return formatMoney(operation.amount, currency);
  if (operation.kind !== 'void') return '—';
  // A void names no amount: it takes back the whole order.
  return operation.state === 'approved' && voided !== null
    ? formatMoney(voided, currency)
    : 'Whole order';
}

/**
 * Who made the operation. A payout's payout-check, payout-pay or payout are learned from the
 * gateway's status, which names no person: the ops users of its four-eyes approval made them
 * (`payoutStaff`, from the payout's record), not the gateway.
 */
export function requesterText(operation: Operation): string {
  const staff = operation.payoutStaff;
  if (staff !== undefined) {
    const prepared = `prepared by ${staff.preparedBy}`;
    const approved = staff.approvedBy === null ? null : `approved by ${staff.approvedBy}`;
    if (operation.kind === 'payout-check') return `Paydesk (${prepared})`;
    if (operation.kind === 'payout-pay' && approved !== null) return `Paydesk (${approved})`;
    return `Paydesk (${approved === null ? prepared : `${prepared}, ${approved}`})`;
  }
  return operation.requestedBy ?? (operation.origin === 'gateway' ? 'gateway' : '—');
}

/** The requester; a sentence naming a payout's ops users wraps, an e-mail alone stays one line. */
function Requester({ operation }: { operation: Operation }) {
  const by = requesterText(operation);
  if (operation.payoutStaff !== undefined) {
    return (
      <Box
        component="span"
        sx={{ display: 'inline-block', whiteSpace: 'normal', minWidth: '12rem' }}
      >
        {by}
      </Box>
    );
  }
  return by.includes('@') ? <EmailText value={by} /> : <>{by}</>;
}

function Outcome({ operation }: { operation: Operation }) {
  return (
    <>
      <Chip
        size="small"
        variant="outlined"
        color={STATE_COLOR[operation.state]}
        label={OPERATION_STATE_LABELS[operation.state]}
      />
      {operation.errorCode || operation.errorMessage ? (
        <Typography variant="caption" component="div" color="text.secondary">
          {outcomeNote(operation)}
        </Typography>
      ) : null}
    </>
  );
}

interface ListProps {
  operations: Operation[];
  currency: string;
  holdCancelled: boolean;
  voided: string | null;
}

/**
 * On a phone, one item per operation, its facts labelled under its name: as a table the six
 * columns need some 980 px and scroll sideways off a 390 px screen.
 */
function OperationItems({ operations, currency, holdCancelled, voided }: ListProps) {
  return (
    <Box
      component="ul"
      // role: a list without bullets stays a list in Safari's VoiceOver.
      role="list"
      aria-label="Operations"
      sx={{ listStyle: 'none', m: 0, p: 0 }}
    >
      {operations.map((operation) => {
        return (
          <Box
            component="li"
            key={operation.id}
            sx={{
              py: 1.5,
              borderTop: 1,
              borderColor: 'divider',
              '&:first-of-type': { borderTop: 0, pt: 0 },
              '&:last-of-type': { pb: 0 },
            }}
          >
            <Typography variant="body1" component="p" sx={{ mb: 0.75, fontWeight: 600 }}>
              {operationLabel(operation.kind, holdCancelled)}
            </Typography>
            <Facts
              rows={[
                ['Outcome', <Outcome key="o" operation={operation} />],
                [
                  'Amount',
                  <Box
                    key="a"
                    component="span"
                    sx={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}
                  >
                    {amountText(operation, currency, voided)}
                  </Box>,
                ],
                ['By', <Requester key="b" operation={operation} />],
                ['Reason', reasonText(operation) ?? '—'],
                ['When', <DateTime key="w" value={operation.createdAt} />],
              ]}
            />
          </Box>
        );
      })}
    </Box>
  );
}

function OperationsTable({ operations, currency, holdCancelled, voided }: ListProps) {
  return (
    // As the app's other tables: text columns keep a readable width and the table scrolls
    // sideways when the screen is narrower than they are.
    <SidewaysTableContainer label="Operations">
      <Table
        size="small"
        aria-label="Operations"
        sx={{ '& th': { whiteSpace: 'nowrap' }, '& td': { verticalAlign: 'top' } }}
      >
        <TableHead>
          <TableRow>
            <TableCell scope="col">Operation</TableCell>
            <TableCell scope="col">Outcome</TableCell>
            <TableCell scope="col" align="right">
              Amount
            </TableCell>
            <TableCell scope="col">By</TableCell>
            <TableCell scope="col">Reason</TableCell>
            <TableCell scope="col">When</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {operations.map((operation) => (
            <TableRow key={operation.id}>
              <TableCell sx={{ whiteSpace: 'nowrap' }}>
                {operationLabel(operation.kind, holdCancelled)}
              </TableCell>
              <TableCell sx={{ minWidth: 120, maxWidth: 240, overflowWrap: 'anywhere' }}>
                <Outcome operation={operation} />
              </TableCell>
              <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                {amountText(operation, currency, voided)}
              </TableCell>
              {/* An e-mail address on one line: broken, it reads as two words. */}
              <TableCell sx={{ whiteSpace: 'nowrap' }}>
                {operation.payoutStaff === undefined ? (
                  requesterText(operation)
                ) : (
                  <Requester operation={operation} />
                )}
              </TableCell>
              {/* Wide enough for a sentence a line: `anywhere` alone (for a long unbroken
                  token) would let the table squeeze the column to a word or less. */}
              <TableCell sx={{ minWidth: 280, maxWidth: 360, overflowWrap: 'anywhere' }}>
                {reasonText(operation) ?? '—'}
              </TableCell>
              <TableCell>
                <DateTime value={operation.createdAt} stacked />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </SidewaysTableContainer>
  );
}

/**
 * The operations on the order: the original one and every follow-up, with their outcome. A table
 * from 600 px up; on a phone, a list of items that fits the width.
 * `holdCancelled`: its returns only cancelled a hold (labels.ts `returnsCancelHold`).
 */
export function OperationsList({
  operations,
  currency,
  holdCancelled = false,
  voided = null,
}: {
  operations: Operation[];
  currency: string;
  holdCancelled?: boolean;
  /** what the order's void took back (amounts-panel.tsx `voidedAmount`); null: not voided */
  voided?: string | null;
}) {
  const theme = useTheme();
  // noSsr: the first render already has the screen's layout (no reshuffle).
  const phone = useMediaQuery(theme.breakpoints.down('sm'), { noSsr: true });
  if (operations.length === 0) {
    return <Typography color="text.secondary">No operations recorded.</Typography>;
  }
  const props = { operations, currency, holdCancelled, voided };
  return phone ? <OperationItems {...props} /> : <OperationsTable {...props} />;
}
