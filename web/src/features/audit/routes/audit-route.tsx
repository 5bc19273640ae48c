import Download from '@mui/icons-material/Download';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import type { AuditFilter } from '@paydesk/shared/api';
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { CollapsibleFilters } from '../../../components/collapsible-filters';
import { EmptyState, ErrorState, LoadingState } from '../../../components/page-states';
import { PageHeader } from '../../../components/page-header';
import { formatCount } from '../../../lib/format';
import { RequireRoles } from '../../auth/components/require-roles';
import { SCREENS } from '../../shell/navigation';
import { auditExportUrl, auditListQueryOptions, csvDelimiterFor } from '../api/audit';
import { filterOf, readAuditQuery, writeAuditQuery } from '../api/audit-search-params';
import { AuditFilters } from '../components/audit-filters';
import { AuditTable } from '../components/audit-table';
import { ChainBadge } from '../components/chain-badge';

function AuditScreen() {
  const [params, setParams] = useSearchParams();
  const query = readAuditQuery(params);
  const filter = filterOf(query);
  const filtered = Object.keys(filter).length > 0;
  const filtersKey = writeAuditQuery({ ...filter, page: 1, pageSize: query.pageSize }).toString();
  const list = useQuery(auditListQueryOptions(query));

  const applyFilter = (next: AuditFilter) => {
    // New filters start at page 1 and push a history entry, so Back returns to the previous view.
    setParams(writeAuditQuery({ ...next, page: 1, pageSize: query.pageSize }));
  };

  return (
    <>
      <PageHeader
        title="Audit log"
        actions={
          <>
            <Button
              component="a"
              // Separated as the reader's spreadsheet splits (`;` where the decimal mark is a comma).
              href={auditExportUrl({ ...filter, format: 'csv', delimiter: csvDelimiterFor() })}
              download
              startIcon={<Download />}
              variant="outlined"
            >
              Export CSV
            </Button>
            <Button
              component="a"
              href={auditExportUrl({ ...filter, format: 'jsonl' })}
              download
              startIcon={<Download />}
              variant="outlined"
            >
              Export JSONL
            </Button>
          </>
        }
      >
        Every attempted action, newest first. Exports contain every row that matches the filters,
        not only this page, with times in UTC.
      </PageHeader>
      <Stack spacing={2}>
        <ChainBadge />
        <CollapsibleFilters appliedKey={filtersKey} active={Object.keys(filter).length}>
          <AuditFilters value={filter} onApply={applyFilter} />
        </CollapsibleFilters>
        {list.isPending ? (
          <LoadingState label="Loading the audit log…" />
        ) : list.isError ? (
          <ErrorState error={list.error} what="the audit log" onRetry={() => void list.refetch()} />
        ) : list.data.total === 0 ? (
          <EmptyState title={filtered ? 'No rows match these filters' : 'The audit log is empty'}>
            {filtered
              ? 'Change or clear the filters to see more.'
              : 'Actions will appear here as staff use Paydesk.'}
          </EmptyState>
        ) : (
          <Paper variant="outlined">
            <Stack sx={{ px: 2, pt: 1.5 }} aria-live="polite">
              {formatCount(list.data.total)} {list.data.total === 1 ? 'row' : 'rows'}
              {filtered ? ' match' : ''}
            </Stack>
            <AuditTable
              page={list.data}
              busy={list.isPlaceholderData}
              pagination={{ pageIndex: query.page - 1, pageSize: query.pageSize }}
              onPaginationChange={(next) => {
                setParams(
                  writeAuditQuery({ ...filter, page: next.pageIndex + 1, pageSize: next.pageSize }),
                );
              }}
            />
          </Paper>
        )}
      </Stack>
    </>
  );
}

export default function AuditRoute() {
  return (
    <RequireRoles roles={SCREENS.audit.roles} what="the audit log">
      <AuditScreen />
    </RequireRoles>
  );
}
