import GlobalStyles from '@mui/material/GlobalStyles';

/**
 * Put on anything that means nothing on paper (a screen's actions, live indicators): it is not
 * printed. MUI's own controls (buttons, menus, snackbars, dialogs) are left out without it.
 */
export const PRINT_HIDDEN_CLASS = 'paydesk-print-hidden';

/** Controls, overlays and chrome: what a click does, never what a record says. */
const NOT_PRINTED = [
  `.${PRINT_HIDDEN_CLASS}`,
  '.MuiAppBar-root',
  '.MuiDrawer-root',
  '.MuiButton-root',
  '.MuiIconButton-root',
  '.MuiButtonGroup-root',
  '.MuiToggleButtonGroup-root',
  '.MuiFab-root',
  '.MuiTableSortLabel-icon',
  '.MuiSnackbar-root',
  '.MuiModal-root',
  '.MuiPopover-root',
  '.MuiPopper-root',
  '.MuiTooltip-popper',
  '.MuiBackdrop-root',
].join(', ');

// Paper is white and the ink black whichever colour scheme the screen shows (a dark scheme's
// white text would not print), with grey rules where the screen has borders.
const INK = '#000';
const RULE = '#9e9e9e';

const PRINT_STYLES = {
  '@page': { margin: '12mm' },
  '@media print': {
    // A little smaller than on screen (about 10 pt body text): an order's operations fit the
    // width of a portrait page.
    ':root': { colorScheme: 'light', fontSize: '15px' },
    '*, *::before, *::after': {
      color: `${INK} !important`,
      background: 'transparent !important',
      borderColor: `${RULE} !important`,
      boxShadow: 'none !important',
      textShadow: 'none !important',
    },
    'html, body': { background: '#fff !important', overflow: 'visible !important' },
    [NOT_PRINTED]: { display: 'none !important' },
    // A link prints as its text: no colour, no underline and no address after it.
    a: { textDecoration: 'none !important' },
    'a[href]::after': { content: 'none' },
    // Alerts lose their tinted background: a frame keeps them apart from the facts.
    '.MuiAlert-root': { border: `1px solid ${RULE}` },
    // Tables fit the page's width: no sideways scrolling box (paper does not scroll), and the
    // cells wrap instead of keeping the widths that make them readable on a wide screen; amounts
    // (right-aligned cells) stay on one line.
    '.MuiTableContainer-root': { overflow: 'visible !important' },
    table: { width: '100% !important', minWidth: '0 !important' },
    'th, td': {
      whiteSpace: 'normal !important',
      minWidth: '0 !important',
      maxWidth: 'none !important',
      overflowWrap: 'break-word',
      paddingLeft: '6px !important',
      paddingRight: '6px !important',
    },
    'td.MuiTableCell-alignRight, th.MuiTableCell-alignRight': {
      whiteSpace: 'nowrap !important',
    },
    thead: { display: 'table-header-group' },
    // A timeline entry's details print when they were opened, without their disclosure otherwise.
    'details:not([open])': { display: 'none !important' },
    'tr, li, .MuiAlert-root': { breakInside: 'avoid' },
    'h1, h2': { breakAfter: 'avoid' },
  },
} as const;

/** How every screen prints: its content, full width, black on white; none of the app's controls. */
export function PrintStyles() {
  return <GlobalStyles styles={PRINT_STYLES} />;
}
