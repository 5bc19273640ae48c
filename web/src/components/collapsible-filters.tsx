import ExpandMore from '@mui/icons-material/ExpandMore';
import FilterList from '@mui/icons-material/FilterList';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useId, useState, type ReactNode } from 'react';

/**
 * A list screen's filter bar: always open on wide screens; below `md` it folds behind a
 * "Filters (n active)" toggle so the rows come first on a phone.
 */
export function CollapsibleFilters({ active, children }: { active: number; children: ReactNode }) {
  const theme = useTheme();
  // noSsr: read the media query on the first render, so a phone never flashes the open bar.
  const narrow = useMediaQuery(theme.breakpoints.down('md'), { noSsr: true });
  const [open, setOpen] = useState(false);
  const regionId = useId();
  if (!narrow) {
    return (
      <Paper variant="outlined" sx={{ p: 2 }}>
        {children}
      </Paper>
    );
  }
  return (
    <Paper variant="outlined" sx={{ p: 1 }}>
      <Button
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
      <Box id={regionId} hidden={!open} sx={{ p: 1, pt: 2 }}>
        {children}
      </Box>
    </Paper>
  );
}
