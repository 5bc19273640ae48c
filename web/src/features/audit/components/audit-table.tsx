import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import {
  ROLE_LABELS,
  type AuditListResponse,
  type AuditOutcome,
  type AuditRow,
} from '@paydesk/shared/api';
import {
  createColumnHelper,
  rowPaginationFeature,
  tableFeatures,
  useTable,
  type PaginationState,
  type Updater,
} from '@tanstack/react-table';
import { useState } from 'react';
import { CopyButton } from '../../../components/copyable-text';
import { DataTable } from '../../../components/data-table';
import { Pager } from '../../../components/pager';
import { DateTime } from '../../../components/date-time';
import { EmailText } from '../../../components/email-text';
import { PAGE_SIZES } from '../api/audit-search-params';

const features = tableFeatures({ rowPaginationFeature });
const helper = createColumnHelper<typeof features, AuditRow>();

const OUTCOME_COLOR: Record<AuditOutcome, 'success' | 'warning' | 'error'> = {
  success: 'success',
  refused: 'warning',
  failed: 'error',
  unknown: 'warning',
};

/** Longer summaries start clamped to three lines so one verbose row does not push the rest away. */
const CLAMP_OVER_CHARS = 160;

function AuditDetails({ row }: { row: AuditRow }) {
  const text = summaryText(row.summary);
  const long = text.length > CLAMP_OVER_CHARS;
  const [expanded, setExpanded] = useState(false);
  const clamped = long && !expanded;
  const { ip, requestId } = row;
  return (
    <Box sx={{ minWidth: 200, maxWidth: 360 }}>
      <Typography
        variant="caption"
        component="div"
        sx={{
          overflowWrap: 'anywhere',
          ...(clamped && {
            display: '-webkit-box',
            WebkitLineClamp: 3,
            WebkitBoxOrient: 'vertical',
            overflow: 'hidden',
          }),
        }}
      >
        {text}
      </Typography>
      {long ? (
        <Link
          component="button"
          type="button"
          variant="caption"
          aria-expanded={expanded}
          aria-label={`${expanded ? 'Show less' : 'Show all'} of row ${String(row.seq)}'s details`}
          onClick={() => {
            setExpanded(!expanded);
          }}
        >
          {expanded ? 'Show less' : 'Show all'}
        </Link>
      ) : null}
      <Typography variant="caption" component="div" color="text.secondary">
        {ip ?? 'no IP'}
        {requestId ? (
          <>
            {' · request '}
            {/* The id is long; its start tells rows apart, the whole id is in the tooltip and is
                what the copy button copies, for the keyboard too. */}
            <span title={requestId} aria-label={requestId}>
              {requestId.length > 12 ? `${requestId.slice(0, 8)}…` : requestId}
            </span>
            <CopyButton label={`request id of row ${String(row.seq)}`} value={requestId} />
          </>
        ) : null}
      </Typography>
    </Box>
  );
}

/** A value of the summary in words: nested objects as "key: value" pairs, a labelled one by its label. */
function valueText(value: unknown): string {
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
      .map(([key, inner]) => `${key} ${valueText(inner)}`)
      .join(', ');
  }
  return JSON.stringify(value);
}

/** The summary as "key: value" pairs; keys with no value (null) are left out. */
function summaryText(summary: Record<string, unknown>): string {
  return Object.entries(summary)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([key, value]) => `${key}: ${valueText(value)}`)
    .join(' · ');
}

const columns = helper.columns([
  helper.accessor('seq', { header: 'Row', cell: (info) => info.getValue() }),
  helper.accessor('at', {
    header: 'Time',
    cell: (info) => <DateTime value={info.getValue()} stacked />,
  }),
  helper.accessor('actorEmail', {
    header: 'Actor',
    cell: (info) => {
      const email = info.getValue();
      return (
        <>
          <Typography variant="body2">
            {email !== null ? (
              <EmailText value={email} />
            ) : info.row.original.requestId === null ? (
              // No user and no request: Paydesk's own work (reconciler, poller, start-up).
              'Paydesk (automatic)'
            ) : (
              'anonymous'
            )}
          </Typography>
          <Typography variant="caption" color="text.secondary">
            {info.row.original.actorRoles.map((role) => ROLE_LABELS[role]).join(', ')}
          </Typography>
        </>
      );
    },
  }),
  helper.accessor('action', {
    header: 'Action',
    cell: (info) => <code>{info.getValue()}</code>,
  }),
  helper.accessor('target', {
    header: 'Target',
    cell: (info) => (
      <Typography
        variant="body2"
        component="div"
        sx={{ minWidth: 110, maxWidth: 160, overflowWrap: 'anywhere' }}
      >
        {info.getValue() ?? '—'}
      </Typography>
    ),
  }),
  helper.accessor('outcome', {
    header: 'Outcome',
    cell: (info) => {
      const row = info.row.original;
      return (
        <>
          <Chip
            size="small"
            label={row.outcome}
            color={OUTCOME_COLOR[row.outcome]}
            variant="outlined"
          />
          {row.errorCode ? (
            <Typography variant="caption" component="div" color="text.secondary">
              {row.errorCode}
            </Typography>
          ) : null}
        </>
      );
    },
  }),
  helper.accessor('summary', {
    header: 'Details',
    cell: (info) => <AuditDetails row={info.row.original} />,
  }),
]);

/** One server page of audit rows; the table's pagination is manual and lives in the URL. */
export function AuditTable({
  page,
  busy,
  pagination,
  onPaginationChange,
}: {
  page: AuditListResponse;
  busy: boolean;
  pagination: PaginationState;
  onPaginationChange: (next: PaginationState) => void;
}) {
  const table = useTable({
    features,
    columns,
    data: page.items,
    getRowId: (row) => String(row.seq),
    manualPagination: true,
    rowCount: page.total,
    state: { pagination },
    onPaginationChange: (updater: Updater<PaginationState>) => {
      onPaginationChange(typeof updater === 'function' ? updater(pagination) : updater);
    },
  });
  return (
    <>
      <DataTable table={table} label="Audit log" busy={busy} />
      <Pager
        pageIndex={pagination.pageIndex}
        pageSize={pagination.pageSize}
        total={page.total}
        pageSizes={PAGE_SIZES}
        onPageIndexChange={(pageIndex) => {
          table.setPageIndex(pageIndex);
        }}
        onPageSizeChange={(pageSize) => {
          table.setPagination({ pageIndex: 0, pageSize });
        }}
      />
    </>
  );
}
