import Alert from '@mui/material/Alert';

/**
 * On a charge's confirm step, a reference no order Paydesk knows carries (`unseenRefText`): said
 * once more where the charge is sent from, as the gateway refuses it if it stores no card under it.
 */
export function UnseenRefNote({ text }: { text: string | undefined }) {
  return text === undefined ? null : <Alert severity="warning">{text}</Alert>;
}
