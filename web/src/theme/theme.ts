import { createTheme } from '@mui/material/styles';

/** Whether the user asked the system for less motion (read once, when the theme is made). */
function prefersReducedMotion(): boolean {
  return (
    typeof window !== 'undefined' &&
    typeof window.matchMedia === 'function' &&
    window.matchMedia('(prefers-reduced-motion: reduce)').matches
  );
}

// The keyboard focus ring: a solid outline in the primary colour (≥ 3:1 against paper and the
// page in both schemes), unlike the grey tints that mark hover and the current page.
const focusRing = {
  outline: '2px solid var(--mui-palette-primary-main)',
  outlineOffset: 2,
} as const;

// Durations of 0 also end the transition components (Fade, Grow, Collapse) at once.
const NO_TRANSITIONS = {
  create: () => 'none',
  duration: {
    shortest: 0,
    shorter: 0,
    short: 0,
    standard: 0,
    complex: 0,
    enteringScreen: 0,
    leavingScreen: 0,
  },
};

// One theme, two colour schemes. CSS variables let the scheme switch without re-rendering the
// tree, and the `data-mui-color-scheme` attribute on <html> makes the choice inspectable.
// With reduced motion there are no ripples and no transitions (dialogs, menus, collapses appear
// at once).
export function createAppTheme(reduceMotion: boolean) {
  return createTheme({
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
    ...(reduceMotion ? { transitions: NO_TRANSITIONS } : {}),
    typography: {
      fontFamily:
        'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
      h1: { fontSize: '1.75rem', fontWeight: 600 },
      h2: { fontSize: '1.25rem', fontWeight: 600 },
    },
    components: {
      MuiButtonBase: {
        defaultProps: { disableRipple: reduceMotion },
        styleOverrides: { root: { '&.Mui-focusVisible': focusRing } },
      },
      MuiLink: { styleOverrides: { root: { '&:focus-visible': focusRing } } },
      // Every control's label in sentence case, as written ('All payouts'), never MUI's capitals.
      MuiButton: {
        defaultProps: { disableElevation: true },
        styleOverrides: { root: { textTransform: 'none' } },
      },
      MuiTab: { styleOverrides: { root: { textTransform: 'none' } } },
      MuiToggleButton: { styleOverrides: { root: { textTransform: 'none' } } },
      MuiAppBar: { defaultProps: { elevation: 0 } },
      MuiTableCell: { styleOverrides: { head: { fontWeight: 600 } } },
    },
  });
}

export const theme = createAppTheme(prefersReducedMotion());

/** localStorage key for the chosen mode ('light' | 'dark' | 'system'). */
export const COLOR_MODE_STORAGE_KEY = 'paydesk-color-mode';
