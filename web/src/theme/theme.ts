import { createTheme } from '@mui/material/styles';

// One theme, two colour schemes. CSS variables let the scheme switch without re-rendering the
// tree, and the `data-mui-color-scheme` attribute on <html> makes the choice inspectable.
export const theme = createTheme({
  cssVariables: { colorSchemeSelector: 'data-mui-color-scheme' },
  colorSchemes: {
    light: {
      palette: {
        primary: { main: '#1f4fa3' },
        secondary: { main: '#5b5f97' },
        // Darker than MUI's default orange so warning text keeps 4.5:1 on white.
        warning: { main: '#a35200' },
        // Darker than MUI's default light blue so info text (e.g. a "Processing" chip) keeps 4.5:1.
        info: { main: '#01579b' },
        background: { default: '#f5f6f8', paper: '#ffffff' },
      },
    },
    dark: {
      palette: {
        primary: { main: '#8fb4ff' },
        secondary: { main: '#b4b8f0' },
        // Lighter than MUI's default red so error text (e.g. a "Declined" chip) keeps 4.5:1 on paper.
        error: { main: '#ff7a70' },
        background: { default: '#111418', paper: '#1a1e24' },
        // MUI puts dark text on the filled success alert (a snackbar) in dark mode: 4:1 only.
        Alert: { successFilledBg: '#2e7d32', successFilledColor: '#ffffff' },
      },
    },
  },
  shape: { borderRadius: 8 },
  typography: {
    fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
    h1: { fontSize: '1.75rem', fontWeight: 600 },
    h2: { fontSize: '1.25rem', fontWeight: 600 },
  },
  components: {
    MuiButton: {
      defaultProps: { disableElevation: true },
      styleOverrides: { root: { textTransform: 'none' } },
    },
    MuiAppBar: { defaultProps: { elevation: 0 } },
    MuiTableCell: { styleOverrides: { head: { fontWeight: 600 } } },
  },
});

/** localStorage key for the chosen mode ('light' | 'dark' | 'system'). */
export const COLOR_MODE_STORAGE_KEY = 'paydesk-color-mode';
