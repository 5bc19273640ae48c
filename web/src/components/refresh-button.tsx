import Refresh from '@mui/icons-material/Refresh';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import type { ReactNode } from 'react';

/**
 * A button that asks the gateway now (an order's or a link's status). Busy, not disabled, while
 * asking: a disabled button would drop the keyboard focus, and a second press does nothing.
 */
export function RefreshButton({
  pending,
  onRefresh,
  children,
}: {
  pending: boolean;
  onRefresh: () => void;
  children: ReactNode;
}) {
  return (
    <Button
      variant="outlined"
      startIcon={pending ? <CircularProgress size={18} color="inherit" aria-hidden /> : <Refresh />}
      aria-disabled={pending}
      aria-busy={pending}
      sx={{ '&[aria-disabled="true"]': { cursor: 'progress', opacity: 0.7 } }}
      onClick={() => {
        if (!pending) onRefresh();
      }}
    >
      {children}
    </Button>
  );
}
