import Link from '@mui/material/Link';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import type { CardRefSummary } from '@paydesk/shared/api';
import { Link as RouterLink } from 'react-router';
import { DateTime } from '../../../components/date-time';
import { formatCount } from '../../../lib/format';
import { TYPE_LABELS } from '../../transactions/components/labels';
import { SidewaysTableContainer } from '../../../components/sideways-table-container';

/** The known card references; choosing one fills the lookup (and the rebill) with it. */
export function CardRefTable({ items }: { items: CardRefSummary[] }) {
  return (
    <SidewaysTableContainer label="Card references">
      <Table size="small" aria-label="Card references">
        <TableHead>
          <TableRow>
            <TableCell scope="col">Card reference</TableCell>
            <TableCell scope="col">Card</TableCell>
            <TableCell scope="col">Made from</TableCell>
            <TableCell scope="col" align="right">
              Orders
            </TableCell>
            <TableCell scope="col">Last used</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((ref) => (
            <TableRow key={ref.cardRefId} hover>
              <TableCell>
                <Link
                  component={RouterLink}
                  to={`/cards?ref=${encodeURIComponent(ref.cardRefId)}`}
                  replace
                  aria-label={`Use card reference ${ref.cardRefId}`}
                >
                  <code>{ref.cardRefId}</code>
                </Link>
              </TableCell>
              <TableCell sx={{ whiteSpace: 'nowrap' }}>
                {ref.card ? (
                  <>
                    <code>{ref.card.masked}</code>
                    {ref.card.brand ? ` · ${ref.card.brand}` : ''}
                  </>
                ) : (
                  '—'
                )}
              </TableCell>
              <TableCell>
                <Link
                  component={RouterLink}
                  to={`/transactions/${encodeURIComponent(ref.source.transactionId)}`}
                >
                  {TYPE_LABELS[ref.source.type]} {ref.source.orderid}
                </Link>
              </TableCell>
              <TableCell align="right">{formatCount(ref.orders)}</TableCell>
              <TableCell>
                <DateTime value={ref.lastUsedAt} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </SidewaysTableContainer>
  );
}
