import ErrorOutline from '@mui/icons-material/ErrorOutlined';
import HelpOutline from '@mui/icons-material/HelpOutlined';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import TableSortLabel from '@mui/material/TableSortLabel';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import {
  failureText,
  type OperationKind,
  type OrderFailure,
  type TransactionSort,
  type TransactionStatus,
  type TransactionSummary,
} from '@paydesk/shared/api';
import {
  createColumnHelper,
  rowSortingFeature,
  tableFeatures,
  useTable,
  type SortingState,
  type Updater,
} from '@tanstack/react-table';
import { Link as RouterLink } from 'react-router';
import { DataTable } from '../../../components/data-table';
import { DateTime } from '../../../components/date-time';
import { formatMoney } from '../../../lib/format';
import { EmailText } from '../../../components/email-text';
import { NOT_MADE_DAYS } from '@paydesk/shared/domain';
import { TransactionStatusChips } from './status-chip';
import { OPERATION_LABELS, OPERATION_STATE_LABELS, TYPE_LABELS } from './labels';
import { NOT_MADE_EFFECT } from '../api/gateway-answer';
import { inSentence } from '../api/operation-message';
import { knownOrderId, missingNumberTitle, orderName } from '../../../lib/order-number';

/**
 * A row's follow-ups whose outcome is unknown (their reply was lost; Paydesk is asking the gateway
 * for the status), beside a status that is known: "Return: outcome unknown". An order whose own
 * outcome is unknown already says so.
 */
export function UnknownOperationChips({
  status,
  kinds,
}: {
  status: TransactionStatus;
  kinds: readonly OperationKind[];
}) {
  if (status === 'unknown' || kinds.length === 0) return null;
  return (
    <Stack direction="row" spacing={0.5} sx={{ flexWrap: 'wrap' }}>
      {kinds.map((kind) => (
        <Chip
          key={kind}
          size="small"
          icon={<HelpOutline />}
          label={`${OPERATION_LABELS[kind]}: outcome unknown`}
          color="warning"
          variant="outlined"
          title={`The gateway’s answer to the ${OPERATION_LABELS[kind].toLowerCase()} was lost; Paydesk is asking it for the status.`}
        />
      ))}
    </Stack>
  );
}

/** "Return not made": the order page's banner's title, in the app's word for the state. */
export function notMadeLabel(kind: OperationKind): string {
  return `${OPERATION_LABELS[kind]} ${OPERATION_STATE_LABELS.not_applied.toLowerCase()}`;
}

/**
 * A row's follow-ups the gateway did not make and that no one made again (the BFF's `notMade`,
 * the rule of the `notMade=true` filter and of the order page's banner): "Return not made", so
 * that finance sees what is still due without opening each order. Whatever the order's status.
 */
export function NotMadeChips({ kinds }: { kinds: readonly OperationKind[] }) {
  if (kinds.length === 0) return null;
  return (
    <Stack direction="row" spacing={0.5} useFlexGap sx={{ flexWrap: 'wrap', maxWidth: '100%' }}>
      {kinds.map((kind) => {
        const effect = NOT_MADE_EFFECT[kind];
        return (
          <Chip
            key={kind}
            size="small"
            icon={<ErrorOutline />}
            label={notMadeLabel(kind)}
            color="warning"
            variant="outlined"
            sx={{ maxWidth: '100%' }}
            title={`Staff asked for a ${inSentence(kind)} in the last ${String(NOT_MADE_DAYS)} days that the gateway did not make${effect === undefined ? '' : `: ${effect}`}. No one has made it again; the order’s page says more.`}
          />
        );
      })}
    </Stack>
  );
}

const features = tableFeatures({ rowSortingFeature });
const helper = createColumnHelper<typeof features, TransactionSummary>();

/** The server sorts by creation time or amount; the table's sorting state maps onto those. */
const SORTABLE = { createdAt: 'created', amount: 'amount' } as const;
type SortableColumn = keyof typeof SORTABLE;

export function sortingOf(sort: TransactionSort): SortingState {
  const [field, direction] = sort.split('_') as ['created' | 'amount', 'asc' | 'desc'];
  return [{ id: field === 'created' ? 'createdAt' : 'amount', desc: direction === 'desc' }];
}

export function sortOf(sorting: SortingState): TransactionSort {
  const first = sorting[0];
  if (first === undefined || !(first.id in SORTABLE)) return 'created_desc';
  return `${SORTABLE[first.id as SortableColumn]}_${first.desc ? 'desc' : 'asc'}`;
}

function SortHeader({
  label,
  sorted,
  onToggle,
  newestLabel,
}: {
  label: string;
  sorted: false | 'asc' | 'desc';
  onToggle: ((event: unknown) => void) | undefined;
  newestLabel: [string, string];
}) {
  const [ascending, descending] = newestLabel;
  const state =
    sorted === false ? 'not sorted' : `sorted ${sorted === 'asc' ? ascending : descending}`;
  return (
    <TableSortLabel
      active={sorted !== false}
      direction={sorted === false ? 'desc' : sorted}
      onClick={onToggle}
      aria-label={`${label}, ${state}. Change the order.`}
    >
      {label}
    </TableSortLabel>
  );
}

const createdColumn = helper.accessor('createdAt', {
  header: ({ column }) => (
    <SortHeader
      label="Created"
      sorted={column.getIsSorted()}
      onToggle={column.getToggleSortingHandler()}
      newestLabel={['oldest first', 'newest first']}
    />
  ),
  cell: (info) => <DateTime value={info.getValue()} stacked />,
  sortDescFirst: true,
});
/** The order's link and, under it, the shop's own id for it. */
function OrderCell({ row }: { row: TransactionSummary }) {
  // A rebill the gateway has not named yet has a placeholder orderid: never shown as a number.
  const known = knownOrderId(row.orderid);
  return (
    <>
      <Link
        component={RouterLink}
        to={`/transactions/${encodeURIComponent(row.id)}`}
        sx={known === null ? undefined : { fontFamily: 'ui-monospace, monospace' }}
        aria-label={orderName(row, { capital: true })}
      >
        {known ?? missingNumberTitle(row)}
      </Link>
      <Typography
        variant="caption"
        component="div"
        color="text.secondary"
        // Wide enough that a generated id (a UUID and a prefix) takes two or three lines, not seven:
        // `anywhere` alone would let the table squeeze the column to the orderid's width.
        sx={{ minWidth: 140, maxWidth: 220, overflowWrap: 'anywhere' }}
      >
        {row.clientOrderId}
      </Typography>
    </>
  );
}

/**
 * The status, a preauth's hold (held or captured), the stage that undid the order or sent money
 * back, follow-ups in doubt or not made, and why the gateway failed the order, so that support need not open
 * it to answer "why was I declined?".
 */
function StatusCell({ row }: { row: TransactionSummary }) {
  const failure = row.failure ?? null;
  return (
    <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
      <TransactionStatusChips order={row} />
      <UnknownOperationChips status={row.status} kinds={row.unknownOperations ?? []} />
      <NotMadeChips kinds={row.notMade ?? []} />
      {failure === null ? null : <FailureCaption failure={failure} />}
    </Stack>
  );
}

/**
 * Why the gateway failed the order, under its status: the reason two lines at most beside the
 * other columns (the whole of it is the title, and on the order's page), the code on a line of its
 * own that is never cut, at any width: support quotes it. Text, never markup: React writes the
 * gateway's words as they are.
 */
function FailureCaption({ failure }: { failure: OrderFailure }) {
  return (
    <Typography
      variant="caption"
      component="div"
      color="text.secondary"
      title={failureText(failure)}
      sx={{ maxWidth: 220, overflowWrap: 'anywhere' }}
    >
      {failure.message === null ? null : (
        <Box
          component="span"
          sx={{
            display: '-webkit-box',
            WebkitLineClamp: 2,
            WebkitBoxOrient: 'vertical',
            overflow: 'hidden',
          }}
        >
          {failure.message}
        </Box>
      )}
      {/* Read as two words, not one, by a screen reader or a copy. */}
      {failure.message === null || failure.code === null ? null : ' '}
      {failure.code === null ? null : (
        <Box component="span" sx={{ display: 'block' }}>
          code {failure.code}
        </Box>
      )}
    </Typography>
  );
}

const orderColumn = helper.accessor('orderid', {
  header: 'Order',
  enableSorting: false,
  cell: (info) => <OrderCell row={info.row.original} />,
});
const typeColumn = helper.accessor('type', {
  header: 'Type',
  enableSorting: false,
  cell: (info) => TYPE_LABELS[info.getValue()],
});
const statusColumn = helper.accessor('status', {
  header: 'Status',
  enableSorting: false,
  cell: (info) => <StatusCell row={info.row.original} />,
});
/**
 * A phone's first column: the order with its status chips under it. Beside each other, the
 * order's id, the widest chip ('Partly returned') and the amount need some 450 px: the amount
 * ended off a 390 px screen. Stacked, the column is as wide as the wider of the two, and the
 * amount beside it fits.
 */
const orderAndStatusColumn = helper.accessor('orderid', {
  id: 'orderAndStatus',
  header: 'Order and status',
  enableSorting: false,
  cell: (info) => (
    <Stack spacing={0.75} sx={{ alignItems: 'flex-start' }}>
      <div>
        <OrderCell row={info.row.original} />
      </div>
      <StatusCell row={info.row.original} />
    </Stack>
  ),
});
const amountColumn = helper.accessor('amount', {
  header: ({ column }) => (
    <SortHeader
      label="Amount"
      sorted={column.getIsSorted()}
      onToggle={column.getToggleSortingHandler()}
      newestLabel={['smallest first', 'largest first']}
    />
  ),
  cell: (info) => (
    <span style={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>
      {formatMoney(info.getValue(), info.row.original.currency)}
    </span>
  ),
  sortDescFirst: true,
});
/**
 * Below a wide screen, the amount with what kind of order it is and its endpoint under it
 * ('Preauth', 'Endpoint 1001'): the two columns of their own pushed the customer off a 1280–1440 px
 * laptop's screen, and support had to scroll sideways to read the e-mail they searched for.
 */
const amountAndTypeColumn = helper.accessor('amount', {
  header: amountColumn.header,
  cell: (info) => {
    const row = info.row.original;
    return (
      <>
        <span style={{ whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }}>
          {formatMoney(row.amount, row.currency)}
        </span>
        <Typography variant="caption" component="div" color="text.secondary">
          {TYPE_LABELS[row.type]}
        </Typography>
        <Typography variant="caption" component="div" color="text.secondary" noWrap>
          Endpoint {row.endpointId}
        </Typography>
      </>
    );
  },
  sortDescFirst: true,
});
const cardColumn = helper.accessor('card', {
  header: 'Card',
  enableSorting: false,
  cell: (info) => {
    const card = info.getValue();
    if (card === null) return '—';
    return (
      <span style={{ whiteSpace: 'nowrap', fontFamily: 'ui-monospace, monospace' }}>
        {card.masked}
        {card.brand ? (
          <Typography variant="caption" component="div" color="text.secondary">
            {card.brand}
          </Typography>
        ) : null}
      </span>
    );
  },
});
function CustomerEmail({ email }: { email: string | null }) {
  return (
    <Typography variant="body2" component="div" sx={{ maxWidth: 240 }}>
      {email === null ? '—' : <EmailText value={email} />}
    </Typography>
  );
}
const customerColumn = helper.accessor('customerEmail', {
  header: 'Customer',
  enableSorting: false,
  cell: (info) => <CustomerEmail email={info.getValue()} />,
});
/**
 * A tablet's last column: the customer's e-mail with the card under it. As two columns beside the
 * order, status and amount they ended some 160 px off an 800 px screen.
 */
const customerAndCardColumn = helper.accessor('customerEmail', {
  id: 'customerAndCard',
  header: 'Customer and card',
  enableSorting: false,
  cell: (info) => {
    const card = info.row.original.card;
    return (
      <>
        <CustomerEmail email={info.getValue()} />
        {card === null ? null : (
          <Typography
            variant="caption"
            component="div"
            color="text.secondary"
            sx={{ whiteSpace: 'nowrap', fontFamily: 'ui-monospace, monospace' }}
          >
            {card.masked}
            {card.brand ? ` · ${card.brand}` : ''}
          </Typography>
        )}
      </>
    );
  },
});
const endpointColumn = helper.accessor('endpointId', { header: 'Endpoint', enableSorting: false });

const columns = helper.columns([
  createdColumn,
  orderColumn,
  typeColumn,
  statusColumn,
  amountColumn,
  cardColumn,
  customerColumn,
  endpointColumn,
]);

/** A laptop's screen: the type and endpoint under the amount, so the customer fits beside. */
const mediumColumns = helper.columns([
  createdColumn,
  orderColumn,
  statusColumn,
  amountAndTypeColumn,
  cardColumn,
  customerColumn,
]);

/**
 * A tablet's screen (600–900 px): the status under the order and the card under the customer, so
 * the row fits without scrolling sideways; the creation time still leads.
 */
const tabletColumns = helper.columns([
  createdColumn,
  orderAndStatusColumn,
  amountAndTypeColumn,
  customerAndCardColumn,
]);

/**
 * On a phone, what support looks for first comes first: the order and its status in one column,
 * its amount beside it, fit the width; the rest follows to the side.
 */
const phoneColumns = helper.columns([
  orderAndStatusColumn,
  amountColumn,
  createdColumn,
  typeColumn,
  cardColumn,
  customerColumn,
  endpointColumn,
]);

/** One server page of transactions; sorting is manual (server-side) and lives in the URL. */
export function TransactionsTable({
  items,
  busy,
  sort,
  onSortChange,
}: {
  items: TransactionSummary[];
  busy: boolean;
  sort: TransactionSort;
  onSortChange: (sort: TransactionSort) => void;
}) {
  const sorting = sortingOf(sort);
  const theme = useTheme();
  // noSsr: the first render already has the phone's column order (no reshuffle).
  const phone = useMediaQuery(theme.breakpoints.down('sm'), { noSsr: true });
  const tablet = useMediaQuery(theme.breakpoints.down('md'), { noSsr: true });
  const medium = useMediaQuery(theme.breakpoints.down('xl'), { noSsr: true });
  const table = useTable({
    features,
    columns: phone ? phoneColumns : tablet ? tabletColumns : medium ? mediumColumns : columns,
    data: items,
    getRowId: (row) => row.id,
    manualSorting: true,
    enableSortingRemoval: false,
    enableMultiSort: false,
    state: { sorting },
    onSortingChange: (updater: Updater<SortingState>) => {
      onSortChange(sortOf(typeof updater === 'function' ? updater(sorting) : updater));
    },
  });
  return <DataTable table={table} label="Transactions" busy={busy} />;
}
