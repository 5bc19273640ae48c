import Chip from '@mui/material/Chip';
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
import { DataTable } from '../../../components/data-table';
import { Pager } from '../../../components/pager';
import { DateTime } from '../../../components/date-time';
import { PAGE_SIZES } from '../api/audit-search-params';

const features = tableFeatures({ rowPaginationFeature });
const helper = createColumnHelper<typeof features, AuditRow>();

const OUTCOME_COLOR: Record<AuditOutcome, 'success' | 'warning' | 'error'> = {
  success: 'success',
  refused: 'warning',
  failed: 'error',
};

function summaryText(summary: Record<string, unknown>): string {
  return Object.entries(summary)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ');
}

const columns = helper.columns([
  helper.accessor('seq', { header: 'Row', cell: (info) => info.getValue() }),
  helper.accessor('at', { header: 'Time', cell: (info) => <DateTime value={info.getValue()} /> }),
  helper.accessor('actorEmail', {
    header: 'Actor',
    cell: (info) => (
      <>
        <Typography variant="body2">{info.getValue() ?? 'anonymous'}</Typography>
        <Typography variant="caption" color="text.secondary">
          {info.row.original.actorRoles.map((role) => ROLE_LABELS[role]).join(', ')}
        </Typography>
      </>
    ),
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
    cell: (info) => {
      const { ip, requestId } = info.row.original;
      return (
        <Typography
          variant="caption"
          component="div"
          sx={{ minWidth: 160, maxWidth: 360, overflowWrap: 'anywhere' }}
        >
          {summaryText(info.getValue())}
          <Typography variant="caption" component="div" color="text.secondary">
            {ip ?? 'no IP'}
            {requestId ? (
              // The id is long; its start tells rows apart, the whole id is in the tooltip.
              <span title={requestId} aria-label={`request ${requestId}`}>
                {` · request ${requestId.length > 12 ? `${requestId.slice(0, 8)}…` : requestId}`}
              </span>
            ) : null}
          </Typography>
        </Typography>
      );
    },
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
