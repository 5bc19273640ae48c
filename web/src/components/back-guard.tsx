import { NavigationType, useBlocker, type BlockerFunction } from 'react-router';
import { leaveRisk, useLeaveRisk } from '../lib/use-leave-guard';
import { ConfirmDialog } from './confirm-dialog';

// Asked when the browser's Back or Forward is pressed, at that moment (not as of the last render):
// the app's own navigations (a link, a form that opens what it made) never ask, as the open
// dialog covers the app's links and a sent form navigates before its dialog has closed.
const askBeforeBack: BlockerFunction = ({ historyAction }) =>
  historyAction === NavigationType.Pop && leaveRisk() !== null;

const WORDS = {
  typed: 'What you typed in the open form has not been sent; leaving drops it.',
  sending:
    'Your request is still on its way. Leaving does not stop it: its outcome will be on the record’s page, not here.',
} as const;

/**
 * The browser's Back and Forward while a form would lose something (`useLeaveGuard`): they ask
 * first, as a reload or a tab close does (QA: Back with a half-filled dialog lost it silently).
 * Rendered once, inside the router: a router runs one blocker at a time.
 */
export function BackGuard() {
  const blocker = useBlocker(askBeforeBack);
  const risk = useLeaveRisk();
  if (blocker.state !== 'blocked') return null;
  return (
    <ConfirmDialog
      open
      title="Leave this page?"
      confirmLabel="Leave"
      cancelLabel="Stay"
      destructive
      onConfirm={() => {
        blocker.proceed();
      }}
      onClose={() => {
        blocker.reset();
      }}
    >
      {WORDS[risk ?? 'typed']}
    </ConfirmDialog>
  );
}
