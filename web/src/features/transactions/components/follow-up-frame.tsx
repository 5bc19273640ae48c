import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Button from '@mui/material/Button';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import {
  createContext,
  useContext,
  useEffect,
  useId,
  useRef,
  useState,
  type MouseEvent,
  type ReactNode,
  type RefObject,
  type SyntheticEvent,
} from 'react';
import { FormDialog } from '../../../components/form-dialog';
import { VISUALLY_HIDDEN } from '../../../components/spoken-money';
import { GatewayWaitNote } from '../../../components/gateway-wait-note';
import { isApiError } from '../../../lib/api-client';
import { refusedField, sentenceOf } from '../../../lib/form-errors';
import { formatMoney } from '../../../lib/format';
import { describeFollowUpError, isFinalRefusal } from '../api/follow-up';
import { COMMENT_MAX } from './comment-help';

/** A follow-up comment's hint: its rule, said before it is broken, and where it is kept. */
export const COMMENT_HINT = `Up to ${String(COMMENT_MAX)} characters, kept in the order’s timeline and the audit log.`;

/** What a confirmation's question knows of the step's primary button. */
interface ConfirmButton {
  /** its words ("Capture €40.00", "Send again") */
  label: string;
  ref: RefObject<HTMLButtonElement | null>;
}
const ConfirmButtonContext = createContext<ConfirmButton | null>(null);

/** A field of the form that takes the keyboard. */
const FIELD = 'input:not([disabled]), select:not([disabled]), textarea:not([disabled])';
/** One that says it is refused (MUI's `error`: a react-hook-form field given setError's message). */
const REFUSED_FIELD = [
  'input:not([disabled])[aria-invalid="true"]',
  'select:not([disabled])[aria-invalid="true"]',
  'textarea:not([disabled])[aria-invalid="true"]',
].join(', ');

/**
 * The frame every follow-up dialog shares: title, form, the outcome of the last attempt, and the
 * buttons. When the outcome is unknown (no reply), the form is locked and the only way forward is
 * to send the very same request again, which the Idempotency-Key makes safe. While its request
 * waits on a slow gateway, nothing closes it, and after a while it says that it waits.
 */
export function FollowUpFrame({
  title,
  what,
  currency,
  pending,
  error,
  outcomeUnknown,
  submitLabel,
  destructive = false,
  dirty = false,
  confirming = false,
  sends = confirming,
  onSubmit,
  onClose,
  onBack,
  resumeAt,
  closeOnly = false,
  children,
}: {
  title: string;
  /** the operation in words, e.g. "the return" */
  what: string;
  currency: string;
  pending: boolean;
  error: unknown;
  outcomeUnknown: boolean;
  submitLabel: string;
  destructive?: boolean;
  /** something was typed or chosen: only Cancel closes it then, not a click beside it or Escape */
  dirty?: boolean;
  /**
   * the confirmation step of a two-step dialog (its question is a ConfirmQuestion): its form and
   * buttons are new elements, so a second Enter or click meant for "Continue" cannot send it
   */
  confirming?: boolean;
  /**
   * submitting sends the request (the confirmation step, or a dialog without one): a second submit
   * before the request has been sent and answered is ignored; a step that only moves on (Continue)
   * is not held back
   */
  sends?: boolean;
  onSubmit: () => void;
  onClose: () => void;
  onBack?: (() => void) | undefined;
  /**
   * where the keyboard resumes when the form comes back from the confirmation: the field a
   * refusal named (`serverFieldsNamed`); else the first field that says it is refused (a
   * react-hook-form field given the server's message), and after Back, the form's first field
   */
  resumeAt?: RefObject<HTMLElement | null> | null | undefined;
  /**
   * nothing is left to do (the order changed while the dialog was open, as its children say):
   * only Close is offered, and takes the focus
   */
  closeOnly?: boolean;
  children: ReactNode;
}) {
  const titleId = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const submitRef = useRef<HTMLButtonElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const primaryLabel = outcomeUnknown ? 'Send again' : submitLabel;
  // Refused in a way the same request cannot change: only Close is offered, and takes the focus
  // from the button that went away.
  const refusedForGood = !outcomeUnknown && !pending && isFinalRefusal(error);
  const final = closeOnly || refusedForGood;
  useEffect(() => {
    if (final) closeRef.current?.focus();
  }, [final]);
  const wasConfirming = useRef(confirming);
  useEffect(() => {
    // Back from the confirmation: the keyboard resumes in the form, not on the dialog's frame.
    if (wasConfirming.current && !confirming) {
      const form = formRef.current;
      (
        resumeAt?.current ??
        form?.querySelector<HTMLElement>(REFUSED_FIELD) ??
        form?.querySelector<HTMLElement>(FIELD)
      )?.focus();
    }
    wasConfirming.current = confirming;
  }, [confirming, resumeAt]);
  // A second Enter on the sending button before it shows busy (a double Enter: QA) would send the
  // request again. Under the same Idempotency-Key the BFF answers it with the stored reply, but it
  // is a second request, audit row and toast. Held from the submit until the request has ended:
  // busy no more, a new error, or a refusal that went back to the form (a quick reply may come
  // with no render showing it busy). Every sending step's submit starts the request at once; a
  // success closes the dialog.
  const sending = useRef(false);
  useEffect(() => {
    if (!pending) sending.current = false;
  }, [pending, error, confirming]);
  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (sends) {
      if (sending.current) return;
      sending.current = true;
    }
    onSubmit();
  };
  // The second click of a double click on "Continue" lands on the confirmation's button, which
  // took its place: a click that is part of a multi-click never sends.
  const ignoreMultiClick = (event: MouseEvent<HTMLButtonElement>) => {
    if (confirming && event.detail > 1) event.preventDefault();
  };
  const step = confirming ? 'confirm' : 'form';
  return (
    <FormDialog
      open
      // Once only Close is left, nothing typed can be sent any more: no guard keeps it (nor the
      // page, on a reload) open.
      dirty={dirty && !final}
      busy={pending}
      onClose={onClose}
      aria-labelledby={titleId}
      fullWidth
      maxWidth="sm"
    >
      {/* Keyed by step: the confirmation never reuses the form's elements, nor the focus on them. */}
      <form key={step} ref={formRef} noValidate aria-labelledby={titleId} onSubmit={submit}>
        <DialogTitle id={titleId}>{title}</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            {outcomeUnknown ? (
              <Alert severity="warning">
                <AlertTitle>No answer yet</AlertTitle>
                {describeFollowUpError(error, currency)} It is not known whether {what} was done.
                Sending again is safe: it is the same request, and Paydesk will not do it twice.
              </Alert>
            ) : error !== null && error !== undefined ? (
              <Alert severity="error">
                {describeFollowUpError(error, currency)}
                {refusedForGood ? (
                  <Typography variant="body2" sx={{ mt: 0.5 }}>
                    Sending it again would be refused too: close this dialog; the order’s page shows
                    what can be done now.
                  </Typography>
                ) : null}
              </Alert>
            ) : null}
            <ConfirmButtonContext
              value={confirming && !final ? { label: primaryLabel, ref: submitRef } : null}
            >
              {children}
            </ConfirmButtonContext>
          </Stack>
          <GatewayWaitNote waiting={pending} />
        </DialogContent>
        <DialogActions>
          <Button
            ref={closeRef}
            onClick={onClose}
            disabled={pending}
            variant={final ? 'contained' : 'text'}
          >
            {final ? 'Close' : 'Cancel'}
          </Button>
          {onBack && !outcomeUnknown && !final ? (
            <Button onClick={onBack} disabled={pending}>
              Back
            </Button>
          ) : null}
          {final ? null : (
            <Button
              ref={submitRef}
              type="submit"
              variant="contained"
              color={destructive ? 'error' : 'primary'}
              loading={pending}
              onClick={ignoreMultiClick}
            >
              {primaryLabel}
            </Button>
          )}
        </DialogActions>
      </form>
    </FormDialog>
  );
}

/**
 * The question of a confirmation step. It takes the keyboard focus when it appears, so a screen
 * reader says it, and an Enter meant for "Continue" lands on it, where it sends nothing. The way
 * on is said to screen readers (its description, not shown) and is one deliberate key: Tab from the question goes straight to the step's
 * primary button (then Shift+Tab reaches Back and Cancel), where Enter sends.
 */
export function ConfirmQuestion({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLParagraphElement>(null);
  const button = useContext(ConfirmButtonContext);
  const hintId = useId();
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <>
      <Typography
        ref={ref}
        tabIndex={-1}
        variant="h6"
        component="p"
        aria-describedby={button === null ? undefined : hintId}
        onKeyDown={(event) => {
          const target = button?.ref.current ?? null;
          if (event.key !== 'Tab' || event.shiftKey || target === null || target.disabled) return;
          event.preventDefault();
          target.focus();
        }}
      >
        {children}
      </Typography>
      {button === null ? null : (
        // Keyboard guidance for screen-reader users (it is the question's description): not shown
        // to everyone, for whom the button is in plain sight.
        <span id={hintId} style={VISUALLY_HIDDEN}>
          Press Tab to reach “{button.label}”.
        </span>
      )}
    </>
  );
}

/**
 * The server's message for `path` (VALIDATION_FAILED, or any refusal that names the field), if it
 * named that field, as a sentence (`sentenceOf`). Given the dialog's currency, a refusal that also says what remains (a cap's
 * `remaining`) says it there too, as the alert would have: 'Refused: …. Remaining: €3.00.'
 */
export function serverFieldError(
  error: unknown,
  path: string,
  currency?: string,
): string | undefined {
  const field = refusedField(error, path);
  if (!isApiError(error) || field === undefined) return undefined;
  const { message } = field;
  const remaining = error.details?.remaining;
  if (currency === undefined || typeof remaining !== 'string' || !/^\d+\.\d{2}$/.test(remaining)) {
    return sentenceOf(path, message, field.rule);
  }
  const inCurrency =
    typeof error.details?.currency === 'string' ? error.details.currency : currency;
  return `Refused: ${message.replace(/[\s.]+$/, '')}. Remaining: ${formatMoney(remaining, inCurrency)}.`;
}

const NOTHING_EDITED: ReadonlySet<string> = new Set();

/**
 * The server's messages under the fields a refusal (`error`) named (`serverFieldError`), each until
 * its field is edited: what the server said of the value it was sent no longer applies to what is
 * typed since. A new refusal (a new `error`) is said in full again. `edited(path)` goes in the
 * field's onChange.
 */
export function useServerFieldErrors(error: unknown) {
  const [edited, setEdited] = useState<{ error: unknown; paths: ReadonlySet<string> }>({
    error: undefined,
    paths: NOTHING_EDITED,
  });
  const paths = edited.error === error ? edited.paths : NOTHING_EDITED;
  return {
    /** the server's message for `path` (`serverFieldError`), unless the field was edited since */
    messageFor: (path: string, currency?: string): string | undefined =>
      paths.has(path) ? undefined : serverFieldError(error, path, currency),
    /** the field at `path` was edited: the refusal's words about it no longer apply */
    edited: (path: string) => {
      if (!isApiError(error)) return;
      setEdited((current) => {
        const before = current.error === error ? current.paths : NOTHING_EDITED;
        return before.has(path) ? current : { error, paths: new Set([...before, path]) };
      });
    },
  };
}

/**
 * Which of a form's fields (`shown`, in the form's order) a refusal names, and whether it also
 * names a field the form does not show. A refusal that names a shown field sends a confirmation
 * back to the form, its message under the field (as the rebill does); one that names none stays
 * an alert on the confirmation.
 */
export function serverFieldsNamed<Field extends string>(
  error: unknown,
  shown: readonly Field[],
): { named: Field[]; elsewhere: boolean } {
  if (!isApiError(error)) return { named: [], elsewhere: false };
  const paths = error.fieldErrors.map((field) => field.path);
  return {
    named: shown.filter((field) => paths.includes(field)),
    elsewhere: paths.some((path) => !(shown as readonly string[]).includes(path)),
  };
}
