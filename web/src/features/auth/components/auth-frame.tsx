import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import type { ReactNode } from 'react';
import { ColorModeToggle } from '../../../theme/color-mode-toggle';

/**
 * The frame of the pages before the app (sign-in, choose your password): no app bar or
 * navigation, the colour mode in a corner, one card in the middle.
 */
export function AuthFrame({ maxWidth, children }: { maxWidth: number; children: ReactNode }) {
  return (
    <Box
      component="main"
      sx={{
        minHeight: '100vh',
        display: 'grid',
        placeItems: 'center',
        p: 2,
        bgcolor: 'background.default',
      }}
    >
      <Box sx={{ position: 'fixed', top: 8, right: 8 }}>
        <ColorModeToggle />
      </Box>
      <Paper variant="outlined" sx={{ width: '100%', maxWidth, p: 4 }}>
        {children}
      </Paper>
    </Box>
  );
}
