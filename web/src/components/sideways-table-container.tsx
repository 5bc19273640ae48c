import TableContainer from '@mui/material/TableContainer';
import Typography from '@mui/material/Typography';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { sidewaysScrollShadows } from './scroll-shadows';

/**
 * Whether the box's table is wider than the box (it scrolls sideways), followed as either changes
 * size (a phone turned, rows loaded). Not as it scrolls: the line it shows stays put, so the table
 * does not jump when its end is reached. False where the browser cannot say.
 */
function useScrollsSideways(box: React.RefObject<HTMLDivElement | null>): boolean {
  const [wider, setWider] = useState(false);
  useEffect(() => {
    const el = box.current;
    if (el === null || typeof ResizeObserver === 'undefined') return;
    // Called back once as observing starts, then on every change of either size.
    const observer = new ResizeObserver(() => {
      setWider(el.scrollWidth > el.clientWidth + 1);
    });
    observer.observe(el);
    if (el.firstElementChild !== null) observer.observe(el.firstElementChild);
    return () => {
      observer.disconnect();
    };
  }, [box]);
  return wider;
}

/**
 * Every table's box: a table wider than the screen scrolls sideways inside it, with shadows on the
 * edges still to scroll to, in a focusable region that says so (keyboard users can scroll it).
 * While the table is wider than the box, a line above it says so in words: the shadow alone was
 * too faint to see on a phone (QA).
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
  const box = useRef<HTMLDivElement>(null);
  const wider = useScrollsSideways(box);
  return (
    <>
      {wider ? (
        <Typography
          variant="caption"
          color="text.secondary"
          component="p"
          sx={{ textAlign: 'right', px: 2, pt: 0.5 }}
        >
          Scroll sideways for more columns →
        </Typography>
      ) : null}
      <TableContainer
        ref={box}
        tabIndex={0}
        role="region"
        aria-label={`${label} (scrolls sideways when wider than the screen)`}
        sx={[sidewaysScrollShadows, { opacity: dimmed ? 0.6 : 1, transition: 'opacity 120ms' }]}
      >
        {children}
      </TableContainer>
    </>
  );
}
