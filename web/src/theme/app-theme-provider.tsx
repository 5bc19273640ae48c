import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import type { ReactNode } from 'react';
import { PrintStyles } from './print-styles';
import { COLOR_MODE_STORAGE_KEY, theme } from './theme';

/** Follows the system scheme until the user picks one; the pick is remembered in localStorage. */
export function AppThemeProvider({ children }: { children: ReactNode }) {
  return (
    <ThemeProvider
      theme={theme}
      defaultMode="system"
      modeStorageKey={COLOR_MODE_STORAGE_KEY}
      disableTransitionOnChange
    >
      <CssBaseline enableColorScheme />
      <PrintStyles />
      {children}
    </ThemeProvider>
  );
}
