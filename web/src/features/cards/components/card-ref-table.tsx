import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { CardRefSummary } from '@paydesk/shared/api';
import { Link as RouterLink } from 'react-router';
import { DateTime } from '../../../components/date-time';
import { formatCount } from '../../../lib/format';
import { TYPE_LABELS } from '../../transactions/components/labels';
import { SidewaysTableContainer } from '../../../components/sideways-table-container';

/** Table cells start at the top: a row's lines read across from its first line. */
const TOP = { verticalAlign: 'top' } as const;

/** The reference, which fills the lookup (and the rebill) with it. */
function RefLink({ item }: { item: CardRefSummary }) {
  return (
    <Link
      component={RouterLink}
      to={`/cards?ref=${encodeURIComponent(item.cardRefId)}`}
      replace
      aria-label={`Use card reference ${item.cardRefId}`}
      // a long reference wraps rather than widen the table
      sx={{ overflowWrap: 'anywhere' }}
    >
      <code>{item.cardRefId}</code>
    </Link>
  );
}

function Card({ item }: { item: CardRefSummary }) {
  return item.card ? (
    <>
      <code>{item.card.masked}</code>
      {item.card.brand ? ` · ${item.card.brand}` : ''}
    </>
  ) : (
    <>—</>
  );
}

/** The order the reference was made from, which leads to its page. */
function Source({ item }: { item: CardRefSummary }) {
  return (
    <Link
      component={RouterLink}
      to={`/transactions/${encodeURIComponent(item.source.transactionId)}`}
    >
      {TYPE_LABELS[item.source.type]} {item.source.orderid}
    </Link>
  );
}

/**
 * The endpoint the reference was made on and its source order's currency, "1001 · EUR": the
 * gateway charges the card only there, and a rebill goes there in that currency by default.
 */
function MadeOn({ item }: { item: CardRefSummary }) {
  return (
    <>
      {item.endpointId} · {item.currency}
    </>
  );
}

const WIDE_HEADERS = [
  'Card reference',
  'Card',
  'Made from',
  'Endpoint · currency',
  'Orders',
  'Last used',
];

/**
 * Rebill the reference's card: the rebill dialog with the reference filled in (QA: finance had to
 * choose the reference first, then press "Rebill a card" at the top).
 */
function RebillButton({ item, onRebill }: { item: CardRefSummary; onRebill: RebillHandler }) {
  return (
    <Button
      size="small"
      variant="outlined"
      aria-label={`Rebill the card of reference ${item.cardRefId}`}
      onClick={() => {
        onRebill(item.cardRefId);
      }}
    >
      Rebill
    </Button>
  );
}

/** Opens the rebill of a reference's card (finance only: absent, the table offers none). */
type RebillHandler = (cardRefId: string) => void;

/**
 * On a phone each reference is one cell, as the payouts' list does it: the reference, its card,
 * the order and endpoint it was made from, how many orders carry it and when it was last used, one
 * under the other. In five columns a 390 px screen showed the reference and the card, and the rest was off
 * its edge.
 */
function PhoneRow({ item, onRebill }: { item: CardRefSummary; onRebill?: RebillHandler }) {
  return (
    <TableRow hover>
      <TableCell sx={TOP}>
        <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }}>
          <RefLink item={item} />
          <Typography variant="body2" component="div">
            <Card item={item} />
          </Typography>
          <Typography variant="body2" component="div">
            Made from <Source item={item} /> on endpoint <MadeOn item={item} />
          </Typography>
          <Typography variant="caption" component="div" color="text.secondary">
            {item.orders === 1 ? '1 order' : `${formatCount(item.orders)} orders`} · last used{' '}
            <DateTime value={item.lastUsedAt} />
          </Typography>
          {onRebill === undefined ? null : <RebillButton item={item} onRebill={onRebill} />}
        </Stack>
      </TableCell>
    </TableRow>
  );
}

/**
 * The known card references; choosing one fills the lookup (and the rebill) with it. With
 * `onRebill`, each row offers to rebill its card.
 */
export function CardRefTable({
  items,
  onRebill,
}: {
  items: CardRefSummary[];
  onRebill?: RebillHandler | undefined;
}) {
  const theme = useTheme();
  // noSsr: the first render already has the phone's layout (no reshuffle).
  const phone = useMediaQuery(theme.breakpoints.down('sm'), { noSsr: true });
  return (
    <SidewaysTableContainer label="Card references">
      <Table size="small" aria-label="Card references">
        <TableHead>
          <TableRow>
            {(phone
              ? ['Card reference']
              : [...WIDE_HEADERS, ...(onRebill === undefined ? [] : ['Actions'])]
            ).map((header) => (
              <TableCell key={header} scope="col" align={header === 'Orders' ? 'right' : 'left'}>
                {header}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {items.map((item) =>
            phone ? (
              <PhoneRow key={item.cardRefId} item={item} onRebill={onRebill} />
            ) : (
              <TableRow key={item.cardRefId} hover>
                <TableCell>
                  <RefLink item={item} />
                </TableCell>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                  <Card item={item} />
                </TableCell>
                <TableCell>
                  <Source item={item} />
                </TableCell>
                <TableCell sx={{ whiteSpace: 'nowrap' }}>
                  <MadeOn item={item} />
                </TableCell>
                <TableCell align="right">{formatCount(item.orders)}</TableCell>
                <TableCell>
                  <DateTime value={item.lastUsedAt} />
                </TableCell>
                {onRebill === undefined ? null : (
                  <TableCell>
                    <RebillButton item={item} onRebill={onRebill} />
                  </TableCell>
                )}
              </TableRow>
            ),
          )}
        </TableBody>
      </Table>
    </SidewaysTableContainer>
  );
}
