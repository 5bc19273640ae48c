import ExpandMore from '@mui/icons-material/ExpandMore';
import FilterList from '@mui/icons-material/FilterList';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

/** Whether filter bars fold (below `md`); read on the first render, so a phone never flashes. */
export function useFoldedFilters(): boolean {
  const theme = useTheme();
  return useMediaQuery(theme.breakpoints.down('md'), { noSsr: true });
}

/**
 * A list screen's filter bar: always open on wide screens; below `md` it folds behind a
 * "Filters (n active)" toggle so the rows come first on a phone, and folds again when a new
 * filter is applied (`appliedKey` changes), the keyboard focus going back to the toggle. A `lead`
 * (the search field) stays in view above the toggle when folded; `active` then counts the rest.
 */
export function CollapsibleFilters({
  active,
  appliedKey,
  lead,
  children,
}: {
  active: number;
  /** the applied filter in some stable text form */
  appliedKey: string;
  /** shown above the toggle on a narrow screen, never folded (wide screens: put it in children) */
  lead?: ReactNode;
  children: ReactNode;
}) {
  const narrow = useFoldedFilters();
  const [open, setOpen] = useState(false);
  const [openFor, setOpenFor] = useState(appliedKey);
  const regionId = useId();
  const toggleRef = useRef<HTMLButtonElement>(null);
  const regionRef = useRef<HTMLDivElement>(null);
  if (openFor !== appliedKey) {
    setOpenFor(appliedKey);
    setOpen(false);
  }
  useLayoutEffect(() => {
    // Folded with the focus inside (the field that applied the filter): the focus goes to the
    // toggle, not to the page. Runs before the browser drops the focus of a hidden element.
    if (!open && regionRef.current?.contains(document.activeElement) === true) {
      toggleRef.current?.focus();
    }
  }, [open]);
  if (!narrow) {
    return (
      <Paper variant="outlined" sx={{ p: 2 }}>
        {children}
      </Paper>
    );
  }
  return (
    <Paper variant="outlined" sx={{ p: 1 }}>
      {lead === undefined ? null : <Box sx={{ p: 1, pb: 0.5 }}>{lead}</Box>}
      <Button
        ref={toggleRef}
        aria-expanded={open}
        aria-controls={regionId}
        startIcon={<FilterList />}
        endIcon={
          <ExpandMore
            sx={{ transform: open ? 'rotate(180deg)' : 'none', transition: 'transform 150ms' }}
          />
        }
        onClick={() => {
          setOpen((was) => !was);
        }}
      >
        Filters ({active} active)
      </Button>
      {/* `hidden` keeps a half-typed draft while folded, and costs no transition code. */}
      <Box id={regionId} ref={regionRef} hidden={!open} sx={{ p: 1, pt: 2 }}>
        {children}
      </Box>
    </Paper>
  );
}
