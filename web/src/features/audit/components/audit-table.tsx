import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import {
  auditTargetParts,
  ROLE_LABELS,
  shortAuditId,
  type AuditListItem,
  type AuditListResponse,
  type AuditOutcome,
} from '@paydesk/shared/api';
import {
  createColumnHelper,
  rowPaginationFeature,
  tableFeatures,
  useTable,
  type PaginationState,
  type Updater,
} from '@tanstack/react-table';
import { Fragment, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { CopyButton } from '../../../components/copyable-text';
import { DataTable } from '../../../components/data-table';
import { Pager } from '../../../components/pager';
import { DateTime } from '../../../components/date-time';
import { EmailText } from '../../../components/email-text';
import { useSession } from '../../auth/components/session-context';
import { CardRefLink } from '../../cards/components/card-ref-link';
import { PAGE_SIZES } from '../api/audit-search-params';
import { auditActionLabel, auditAttemptLabel } from '../api/audit-actions';
import { auditTargetPath } from '../api/audit-targets';
import { summaryText } from '../api/audit-summary';
import { OUTCOME_LABELS } from './audit-filters';

const features = tableFeatures({ rowPaginationFeature });
const helper = createColumnHelper<typeof features, AuditListItem>();

const OUTCOME_COLOR: Record<AuditOutcome, 'success' | 'warning' | 'error'> = {
  success: 'success',
  refused: 'warning',
  failed: 'error',
  unknown: 'warning',
};

/** Longer summaries start clamped to three lines so one verbose row does not push the rest away. */
const CLAMP_OVER_CHARS = 160;

/**
 * The row's details: its summary, where the request came from and, once expanded, the target as
 * stored when the Target column names it otherwise (the evidence, which the tooltip there shows
 * only to a mouse).
 */
function AuditDetails({ row }: { row: AuditListItem }) {
  const text = summaryText(row.summary, row.action);
  const long = text.length > CLAMP_OVER_CHARS;
  const stored =
    row.target !== null && auditTargetParts(row.target, row.targetRef) !== null ? row.target : null;
  const [expanded, setExpanded] = useState(false);
  const clamped = long && !expanded;
  const { ip, requestId } = row;
  return (
    <Box sx={{ minWidth: 160, maxWidth: 360 }}>
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
      {expanded && stored !== null ? (
        <Typography variant="caption" component="div" sx={{ overflowWrap: 'anywhere' }}>
          {'Stored target: '}
          <code>{stored}</code>
          <CopyButton label={`stored target of row ${String(row.seq)}`} value={stored} />
        </Typography>
      ) : null}
      {long || stored !== null ? (
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

/**
 * What the row's target names, in the words the CSV export uses too (shared `auditTargetParts`):
 * its kind, the record's Paydesk id (its start; a user's e-mail, a card reference's id) and the
 * gateway's order number beside it where known: "Payout 1f3a… · order 1000123". The name links to
 * the record's page when the reader's roles open it (a card reference: Cards), else is plain text.
 * The target as stored, the evidence, is the tooltip for a mouse and in the row's expanded details
 * for everyone (and in the exports). A target said in no words shows as stored.
 */
function AuditTarget({ row }: { row: AuditListItem }) {
  const { user } = useSession();
  const { target, targetRef: ref } = row;
  const sx = { minWidth: 110, maxWidth: 180, overflowWrap: 'anywhere' } as const;
  const parts = auditTargetParts(target, ref, shortAuditId);
  if (target === null || parts === null) {
    return (
      <Typography variant="body2" component="div" sx={sx}>
        {target ?? '—'}
      </Typography>
    );
  }
  const kind = target.slice(0, target.indexOf(':'));
  const name =
    ref?.kind === 'user' || kind === 'account' ? (
      <EmailText value={parts.name} />
    ) : kind === 'card-ref' ? (
      <CardRefLink cardRefId={parts.name} />
    ) : (
      parts.name
    );
  const path = ref === null ? null : auditTargetPath(ref, user.roles);
  const words = (
    <>
      {parts.kind} {name}
    </>
  );
  return (
    <Box sx={sx} title={target}>
      <Typography variant="body2" component="div">
        {path === null ? (
          words
        ) : (
          <Link component={RouterLink} to={path}>
            {words}
          </Link>
        )}
        {parts.gateway === null ? null : ` · ${parts.gateway}`}
      </Typography>
    </Box>
  );
}

/**
 * An action in words ("Approved a payout"), its name under it: the Action filter takes the name,
 * and the export holds it. The name may break after a dot ('payment_link.' / 'withdraw') on a
 * narrow column. A request repeated with its Idempotency-Key (a double Enter, a retry after a
 * dropped reply) is a row of its own, answered with the stored reply: said under the words, so
 * that counting the rows does not count the capture twice (QA: 6 rows for 5 captures).
 */
function ActionText({ row }: { row: AuditListItem }) {
  const { action, outcome } = row;
  const parts = action.split('.');
  return (
    <div>
      <Typography variant="body2" component="div">
        {outcome === 'success' ? auditActionLabel(action) : auditAttemptLabel(action)}
      </Typography>
      {row.summary.replayed === true ? (
        <Typography variant="caption" component="div" color="text.secondary">
          A repeated request: answered with the stored reply, nothing done again.
        </Typography>
      ) : null}
      <Typography variant="caption" component="div" color="text.secondary">
        <code title={`Action name (for the Action filter): ${action}`}>
          {parts.map((part, i) => (
            <Fragment key={i}>
              {part}
              {i < parts.length - 1 ? (
                <>
                  .<wbr />
                </>
              ) : null}
            </Fragment>
          ))}
        </code>
      </Typography>
    </div>
  );
}

/** The outcome's chip, and the error code of a refusal or failure under it. */
function Outcome({ row }: { row: AuditListItem }) {
  return (
    <div>
      <Chip
        size="small"
        label={OUTCOME_LABELS[row.outcome]}
        color={OUTCOME_COLOR[row.outcome]}
        variant="outlined"
      />
      {row.errorCode ? (
        <Typography variant="caption" component="div" color="text.secondary">
          {row.errorCode}
        </Typography>
      ) : null}
    </div>
  );
}

/** Who did it: their e-mail (or what acted without one) and their roles under it. */
function Actor({ row }: { row: AuditListItem }) {
  const email = row.actorEmail;
  return (
    <div>
      <Typography variant="body2">
        {email !== null ? (
          <EmailText value={email} />
        ) : row.requestId === null ? (
          // No user and no request: Paydesk's own work (reconciler, poller, start-up).
          'Paydesk (automatic)'
        ) : (
          'anonymous'
        )}
      </Typography>
      <Typography variant="caption" color="text.secondary">
        {row.actorRoles.map((role) => ROLE_LABELS[role]).join(', ')}
      </Typography>
    </div>
  );
}

const seqColumn = helper.accessor('seq', { header: 'Row', cell: (info) => info.getValue() });
const atColumn = helper.accessor('at', {
  header: 'Time',
  cell: (info) => <DateTime value={info.getValue()} stacked />,
});
const actorColumn = helper.accessor('actorEmail', {
  header: 'Actor',
  cell: (info) => <Actor row={info.row.original} />,
});
const actionColumn = helper.accessor('action', {
  header: 'Action',
  cell: (info) => <ActionText row={info.row.original} />,
});
const targetColumn = helper.accessor('target', {
  header: 'Target',
  cell: (info) => <AuditTarget row={info.row.original} />,
});
const outcomeColumn = helper.accessor('outcome', {
  header: 'Outcome',
  cell: (info) => <Outcome row={info.row.original} />,
});
const detailsColumn = helper.accessor('summary', {
  header: 'Details',
  cell: (info) => <AuditDetails row={info.row.original} />,
});
/** The outcome under the action: one column the width of the longer action name. */
const actionAndOutcomeColumn = helper.accessor('action', {
  id: 'actionAndOutcome',
  header: 'Action and outcome',
  cell: (info) => (
    <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
      <ActionText row={info.row.original} />
      <Outcome row={info.row.original} />
    </Stack>
  ),
});

/** The row's number over its time: one narrow column. */
const seqAndTimeColumn = helper.accessor('seq', {
  id: 'seqAndTime',
  header: 'Row and time',
  cell: (info) => (
    <Stack spacing={0.5}>
      <span>#{info.getValue()}</span>
      <DateTime value={info.row.original.at} stacked />
    </Stack>
  ),
});
/** Who did it over what it was done to. */
const actorAndTargetColumn = helper.accessor('actorEmail', {
  id: 'actorAndTarget',
  header: 'Actor and target',
  cell: (info) => (
    <Stack spacing={1}>
      <Actor row={info.row.original} />
      <AuditTarget row={info.row.original} />
    </Stack>
  ),
});
/**
 * A phone's whole row in one cell: what was done and how it ended, when (and the row's number),
 * who did it, to what, then the details. Five columns and more side by side scrolled sideways at
 * 390 px, cutting the Target header to "Tar".
 */
const entryColumn = helper.accessor('action', {
  id: 'entry',
  header: 'Entry',
  cell: (info) => {
    const row = info.row.original;
    return (
      <Stack spacing={1} sx={{ alignItems: 'flex-start' }}>
        <Stack
          direction="row"
          spacing={1}
          useFlexGap
          sx={{ flexWrap: 'wrap', alignItems: 'center' }}
        >
          <ActionText row={row} />
          <Outcome row={row} />
        </Stack>
        <Typography variant="caption" component="div" color="text.secondary">
          Row #{row.seq} · <DateTime value={row.at} />
        </Typography>
        <Actor row={row} />
        <AuditTarget row={row} />
        <AuditDetails row={row} />
      </Stack>
    );
  },
});

const columns = helper.columns([
  seqColumn,
  atColumn,
  actorColumn,
  actionColumn,
  targetColumn,
  outcomeColumn,
  detailsColumn,
]);

/**
 * A laptop's screen (below 1536 px): the outcome under the action, so the details, what an auditor
 * reads a row for, fit beside them instead of off the screen's edge at 1280 px.
 */
const mediumColumns = helper.columns([
  seqColumn,
  atColumn,
  actorColumn,
  actionAndOutcomeColumn,
  targetColumn,
  detailsColumn,
]);

/**
 * A tablet's screen (600 to 1200 px, no side navigation): four columns, the row's number over its
 * time, the outcome under the action, the target under the actor, then the details, which fit
 * beside them at 800 px instead of being cut at the screen's edge.
 */
const tabletColumns = helper.columns([
  seqAndTimeColumn,
  actionAndOutcomeColumn,
  actorAndTargetColumn,
  detailsColumn,
]);

/** A phone's screen (below 600 px): each row one cell (`entryColumn`). */
const phoneColumns = helper.columns([entryColumn]);

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
  const theme = useTheme();
  // noSsr: the first render already has the screen's columns (no reshuffle).
  const phone = useMediaQuery(theme.breakpoints.down('sm'), { noSsr: true });
  const tablet = useMediaQuery(theme.breakpoints.down('lg'), { noSsr: true });
  const medium = useMediaQuery(theme.breakpoints.down('xl'), { noSsr: true });
  const table = useTable({
    features,
    columns: phone ? phoneColumns : tablet ? tabletColumns : medium ? mediumColumns : columns,
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
