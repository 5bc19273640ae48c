import FiberManualRecord from '@mui/icons-material/FiberManualRecord';
import Chip from '@mui/material/Chip';
import type { LiveState } from '../api/live-events';

const LOOK: Record<
  LiveState,
  { label: string; color: 'success' | 'warning' | 'default'; title: string }
> = {
  live: { label: 'Live', color: 'success', title: 'Status changes appear as they happen.' },
  connecting: { label: 'Connecting…', color: 'default', title: 'Connecting to live updates.' },
  reconnecting: {
    label: 'Reconnecting…',
    color: 'warning',
    title: 'Live updates were interrupted; reconnecting. The screen catches up once they are back.',
  },
  off: { label: 'Not live', color: 'default', title: 'Live updates are off; reload to refresh.' },
};

/** Whether the screen follows status changes right now. */
export function LiveIndicator({ state }: { state: LiveState }) {
  const look = LOOK[state];
  return (
    <Chip
      size="small"
      variant="outlined"
      color={look.color}
      icon={<FiberManualRecord sx={{ fontSize: 12 }} />}
      label={look.label}
      title={look.title}
      role="status"
    />
  );
}
