import TableContainer from '@mui/material/TableContainer';
import type { ReactNode } from 'react';
import { sidewaysScrollShadows } from './scroll-shadows';

/**
 * Every table's box: a table wider than the screen scrolls sideways inside it, with shadows on the
 * edges still to scroll to, in a focusable region that says so (keyboard users can scroll it).
 */
export function SidewaysTableContainer({
  label,
  dimmed = false,
  children,
}: {
  /** the table's name; the region adds that it scrolls */
  label: string;
  /** faded while the rows are being replaced (a new page or filter loading) */
  dimmed?: boolean;
  children: ReactNode;
}) {
  return (
    <TableContainer
      tabIndex={0}
      role="region"
      aria-label={`${label} (scrolls sideways when wider than the screen)`}
      sx={[sidewaysScrollShadows, { opacity: dimmed ? 0.6 : 1, transition: 'opacity 120ms' }]}
    >
      {children}
    </TableContainer>
  );
}
