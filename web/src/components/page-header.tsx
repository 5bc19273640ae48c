import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { useEffect, type ReactNode, type Ref } from 'react';
import { PRINT_HIDDEN_CLASS } from '../theme/print-styles';

/** The screen's one h1 (also the document title) and its main actions. */
export function PageHeader({
  title,
  actions,
  headingRef,
  children,
}: {
  title: string;
  actions?: ReactNode;
  /**
   * Makes the heading focusable by script (tabIndex -1): where a screen sends the keyboard focus
   * when the control that had it goes away (e.g. an action done and no longer offered).
   */
  headingRef?: Ref<HTMLHeadingElement>;
  children?: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · Paydesk`;
  }, [title]);
  return (
    // One wrapping row: the title takes what the actions leave (its text wraps first), the
    // actions keep their natural width beside it and move below it, together, only when the
    // title would get narrower than 20rem (phones).
    <Box
      sx={{
        mb: 3,
        display: 'flex',
        flexWrap: 'wrap',
        gap: 2,
        alignItems: 'center',
        justifyContent: 'space-between',
      }}
    >
      <Box sx={{ flex: '1 1 20rem', minWidth: 0 }}>
        <Typography
          variant="h1"
          ref={headingRef}
          tabIndex={headingRef === undefined ? undefined : -1}
          // Its focus ring fits the title, not the whole row.
          sx={{ width: 'fit-content', maxWidth: '100%' }}
        >
          {title}
        </Typography>
        {children ? (
          // A long value without spaces (a description, an e-wallet id) wraps rather than pushing
          // the page wider than the screen and under the actions (QA).
          <Typography
            color="text.secondary"
            component="div"
            sx={{ mt: 0.5, overflowWrap: 'anywhere' }}
          >
            {children}
          </Typography>
        ) : null}
      </Box>
      {actions ? (
        // Buttons and live indicators: nothing to do or follow on paper, so not printed.
        <Box
          className={PRINT_HIDDEN_CLASS}
          sx={{
            flex: '0 1 auto',
            display: 'flex',
            flexWrap: 'wrap',
            gap: 1,
            alignItems: 'center',
          }}
        >
          {actions}
        </Box>
      ) : null}
    </Box>
  );
}
