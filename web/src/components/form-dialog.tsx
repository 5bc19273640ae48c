import Dialog, { type DialogProps } from '@mui/material/Dialog';
import { useLeaveGuard } from '../lib/use-leave-guard';

/**
 * A dialog that holds a form. A click beside it or Escape closes it only while nothing has been
 * typed or chosen: once the form is dirty, only its own Cancel (or a decision) closes it, so a
 * stray click never throws away what someone entered. Nothing closes it while its request is on
 * its way. The same holds for the browser's ways out (reload, tab close): while the form is dirty
 * or its request is on its way, the browser asks before leaving (`useLeaveGuard`).
 */
export function FormDialog({
  dirty,
  busy = false,
  onClose,
  ...props
}: Omit<DialogProps, 'onClose'> & {
  /** something was typed or chosen that closing would lose */
  dirty: boolean;
  /** a request is on its way */
  busy?: boolean;
  onClose: () => void;
}) {
  useLeaveGuard(props.open && (busy || dirty));
  return <Dialog {...props} onClose={busy || dirty ? undefined : onClose} />;
}
