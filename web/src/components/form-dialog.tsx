import Dialog, { type DialogProps } from '@mui/material/Dialog';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { useLeaveGuard } from '../lib/use-leave-guard';

/** Said under a dirty form's buttons when Escape or a click beside it did not close it. */
export const KEPT_TYPED_TEXT = 'What you typed is kept. To close without it, press Cancel.';

/**
 * A dialog that holds a form. A click beside it or Escape closes it only while nothing has been
 * typed or chosen: once the form is dirty, only its own Cancel (or a decision) closes it, so a
 * stray click never throws away what someone entered, and the dialog says so under its buttons
 * (QA: Escape seemed to do nothing). Nothing closes it while its request is on its way. The same
 * holds for the browser's ways out (reload, tab close, Back and Forward): while the form is dirty
 * or its request is on its way, leaving asks first (`useLeaveGuard`).
 */
export function FormDialog({
  dirty,
  busy = false,
  onClose,
  children,
  ...props
}: Omit<DialogProps, 'onClose'> & {
  /** something was typed or chosen that closing would lose */
  dirty: boolean;
  /** a request is on its way */
  busy?: boolean;
  onClose: () => void;
}) {
  useLeaveGuard(!props.open ? null : busy ? 'sending' : dirty ? 'typed' : null);
  const [kept, setKept] = useState(false);
  // Said of what is typed now: once the form is clean again, it goes until the next Escape.
  if (kept && !dirty) setKept(false);
  return (
    <Dialog
      {...props}
      onClose={() => {
        if (busy) return;
        if (dirty) setKept(true);
        else onClose();
      }}
    >
      {children}
      {kept && dirty && !busy ? (
        <Typography
          role="status"
          variant="body2"
          color="text.secondary"
          sx={{ px: 3, pb: 2, textAlign: 'right' }}
        >
          {KEPT_TYPED_TEXT}
        </Typography>
      ) : null}
    </Dialog>
  );
}
