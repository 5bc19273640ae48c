import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import {
  FlexRender,
  type ReactTable,
  type RowData,
  type TableFeatures,
} from '@tanstack/react-table';
import { SidewaysTableContainer } from './sideways-table-container';

interface SortableColumn {
  getCanSort: () => boolean;
  getIsSorted: () => false | 'asc' | 'desc';
}

/** A sortable column's order for assistive technology; nothing for a column that does not sort. */
function ariaSortOf(column: object): 'ascending' | 'descending' | 'none' | undefined {
  // Only tables built with the sorting feature have these.
  if (!('getCanSort' in column) || !('getIsSorted' in column)) return undefined;
  const sortable = column as SortableColumn;
  if (!sortable.getCanSort()) return undefined;
  const sorted = sortable.getIsSorted();
  return sorted === 'asc' ? 'ascending' : sorted === 'desc' ? 'descending' : 'none';
}

/** MUI markup for a TanStack table: the table owns rows and state, this owns semantics and look. */
export function DataTable<TFeatures extends TableFeatures, TData extends RowData, TSelected>({
  table,
  label,
  busy = false,
  selectedRowId,
}: {
  table: ReactTable<TFeatures, TData, TSelected>;
  label: string;
  busy?: boolean;
  /**
   * The row the page was opened for (a link from elsewhere): shown selected, marked
   * `aria-current`, and focusable from script (`tabIndex` -1) so that the page can bring it into view.
   */
  selectedRowId?: string | undefined;
}) {
  return (
    <SidewaysTableContainer label={label} dimmed={busy}>
      <Table size="small" aria-label={label} aria-busy={busy}>
        <TableHead>
          {table.getHeaderGroups().map((group) => (
            <TableRow key={group.id}>
              {group.headers.map((header) => (
                <TableCell
                  key={header.id}
                  scope="col"
                  aria-sort={ariaSortOf(header.column)}
                  sx={{ whiteSpace: 'nowrap' }}
                >
                  {header.isPlaceholder ? null : <FlexRender header={header} />}
                </TableCell>
              ))}
            </TableRow>
          ))}
        </TableHead>
        <TableBody>
          {table.getRowModel().rows.map((row) => (
            <TableRow
              key={row.id}
              hover
              {...(row.id === selectedRowId
                ? { selected: true, 'aria-current': 'true' as const, tabIndex: -1 }
                : {})}
            >
              {row.getAllCells().map((cell) => (
                <TableCell key={cell.id} sx={{ verticalAlign: 'top' }}>
                  <FlexRender cell={cell} />
                </TableCell>
              ))}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </SidewaysTableContainer>
  );
}
