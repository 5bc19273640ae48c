import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';

/** One figure with its heading; `children` holds the details (per currency, links). */
export function MetricCard({
  title,
  value,
  tone = 'normal',
  describedBy,
  children,
}: {
  title: string;
  value?: ReactNode;
  tone?: 'normal' | 'attention';
  /** the id of words outside the card that explain it (said once for several cards) */
  describedBy?: string;
  children?: ReactNode;
}) {
  const id = `metric-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <Paper
      component="section"
      aria-labelledby={id}
      aria-describedby={describedBy}
      variant="outlined"
      sx={{
        p: 2,
        height: '100%',
        borderColor: tone === 'attention' ? 'warning.main' : 'divider',
        borderLeftWidth: tone === 'attention' ? 4 : 1,
      }}
    >
      <Typography id={id} component="h3" variant="subtitle2" color="text.secondary">
        {title}
      </Typography>
      {value === undefined ? null : (
        <Typography component="p" variant="h4" sx={{ fontWeight: 600, mt: 0.5 }}>
          {value}
        </Typography>
      )}
      {children}
    </Paper>
  );
}
