import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  TotpConfirmRequestSchema,
  TotpEnrolRequestSchema,
  type TotpConfirmRequest,
  type TotpEnrolRequest,
  type TotpEnrolResponse,
} from '@paydesk/shared/api';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { QRCodeSVG } from 'qrcode.react';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { CopyableText } from '../../../components/copyable-text';
import { useNotify } from '../../../components/notifier';
import { describeError, isApiError } from '../../../lib/api-client';
import { fieldHelp } from '../../../lib/field-help';
import { confirmTotp, sessionKeys, startTotpEnrolment } from '../api/session';
import { useSession } from './session-context';

type Step =
  | { kind: 'idle' }
  | { kind: 'confirm'; enrolment: TotpEnrolResponse }
  | { kind: 'done'; recoveryCodes: string[] };

function ConfirmCode({
  enrolment,
  onConfirmed,
  onRestart,
}: {
  enrolment: TotpEnrolResponse;
  onConfirmed: (codes: string[]) => void;
  onRestart: () => void;
}) {
  const { register, handleSubmit, formState, setError } = useForm<
    z.input<typeof TotpConfirmRequestSchema>,
    unknown,
    TotpConfirmRequest
  >({ resolver: zodResolver(TotpConfirmRequestSchema), defaultValues: { code: '' } });
  const mutation = useMutation({
    mutationFn: confirmTotp,
    onSuccess: (reply) => {
      onConfirmed(reply.recoveryCodes);
    },
    onError: (error) => {
      if (
        isApiError(error) &&
        (error.code === 'TOTP_INVALID' || error.code === 'VALIDATION_FAILED')
      ) {
        setError('code', {
          type: 'server',
          message: 'That code is not valid. Enter the current code from your app.',
        });
      }
    },
  });
  const notPending = isApiError(mutation.error) && mutation.error.code === 'TOTP_NOT_PENDING';
  return (
    <Stack spacing={2}>
      <Typography>
        Scan this code with your authenticator app, or type the secret into it by hand; then enter
        the code it shows.
      </Typography>
      {/* Drawn here from the setup link (the otpauth URI): the secret never leaves the page for an
          image service. Staff read "setup link": "otpauth URI" is the standard's name, not theirs. */}
      <Box
        sx={{
          alignSelf: 'flex-start',
          lineHeight: 0,
          bgcolor: '#fff',
          border: 1,
          borderColor: 'divider',
          borderRadius: 1,
        }}
      >
        <QRCodeSVG
          value={enrolment.otpauthUri}
          size={200}
          marginSize={4}
          bgColor="#ffffff"
          fgColor="#000000"
          role="img"
          aria-label="QR code of the setup link, to scan with an authenticator app"
        />
      </Box>
      <CopyableText label="Secret" value={enrolment.secret} />
      <CopyableText
        label="Setup link (for apps that cannot scan the code)"
        value={enrolment.otpauthUri}
        multiline
      />
      <form
        noValidate
        aria-label="Confirm authenticator code"
        onSubmit={(event) => {
          void handleSubmit((values) => {
            mutation.mutate(values);
          })(event);
        }}
      >
        <Stack
          direction={{ xs: 'column', sm: 'row' }}
          spacing={2}
          sx={{ alignItems: 'flex-start' }}
        >
          <TextField
            label="Code from the app"
            autoComplete="one-time-code"
            required
            slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 7 } }}
            error={formState.errors.code !== undefined}
            // The shared rule's words ("must be a 6-digit code") follow a field name: a sentence here.
            helperText={fieldHelp(
              formState.errors.code,
              'Enter the 6-digit code from your authenticator app.',
              '6 digits',
            )}
            {...register('code')}
          />
          <Button
            type="submit"
            variant="contained"
            loading={mutation.isPending}
            sx={{ mt: { sm: 1 } }}
          >
            Turn on two-step sign-in
          </Button>
        </Stack>
      </form>
      {notPending ? (
        <Alert
          severity="warning"
          action={
            <Button color="inherit" size="small" onClick={onRestart}>
              Start again
            </Button>
          }
        >
          This enrolment is no longer pending. Start again (with your password) to get a new secret.
        </Alert>
      ) : mutation.isError &&
        !(isApiError(mutation.error) && mutation.error.code === 'TOTP_INVALID') ? (
        <Alert severity="error">{describeError(mutation.error)}</Alert>
      ) : null}
    </Stack>
  );
}

/**
 * The start of enrolment: the current password first, so that a session left open is not enough
 * to bind someone else's authenticator to the account (the BFF asks it too).
 */
function StartEnrolment({ onStarted }: { onStarted: (enrolment: TotpEnrolResponse) => void }) {
  const notify = useNotify();
  const { register, handleSubmit, formState, setError, reset } = useForm<
    z.input<typeof TotpEnrolRequestSchema>,
    unknown,
    TotpEnrolRequest
  >({ resolver: zodResolver(TotpEnrolRequestSchema), defaultValues: { currentPassword: '' } });
  const start = useMutation({
    mutationFn: startTotpEnrolment,
    onSuccess: (enrolment) => {
      // The password leaves the page's memory with the form.
      reset();
      onStarted(enrolment);
    },
    onError: (error) => {
      if (isApiError(error) && error.code === 'CURRENT_PASSWORD_INVALID') {
        setError(
          'currentPassword',
          { type: 'server', message: 'This is not your current password.' },
          { shouldFocus: true },
        );
        return;
      }
      notify(
        isApiError(error) && error.code === 'TOTP_ALREADY_ENABLED'
          ? 'Two-step sign-in is already on for this account.'
          : describeError(error),
        'error',
      );
    },
  });
  return (
    <form
      noValidate
      aria-label="Set up two-step sign-in"
      onSubmit={(event) => {
        void handleSubmit((values) => {
          start.mutate(values);
        })(event);
      }}
    >
      <Stack spacing={2} sx={{ alignItems: 'flex-start', maxWidth: 420 }}>
        <Typography>
          Two-step sign-in asks for a code from an authenticator app after your password. It is off
          for your account. To set it up, confirm your password first.
        </Typography>
        <TextField
          label="Current password"
          type="password"
          autoComplete="current-password"
          required
          fullWidth
          error={formState.errors.currentPassword !== undefined}
          helperText={fieldHelp(
            formState.errors.currentPassword,
            'Enter your current password.',
            'The password you sign in with.',
          )}
          {...register('currentPassword')}
        />
        <Button type="submit" variant="contained" loading={start.isPending}>
          Set up two-step sign-in
        </Button>
      </Stack>
    </form>
  );
}

/**
 * Two-step sign-in: the current password, then enrol (a QR code of the otpauth URI, the secret and
 * the URI as text), confirm with a code, then the recovery codes, shown once.
 */
export function TotpEnrolment() {
  const { user } = useSession();
  const client = useQueryClient();
  const [step, setStep] = useState<Step>({ kind: 'idle' });

  if (step.kind === 'done') {
    return (
      <Stack spacing={2}>
        <Alert severity="success">Two-step sign-in is on.</Alert>
        <Alert severity="warning">
          Save these recovery codes somewhere safe now. Each works once if you lose your
          authenticator; they will not be shown again.
        </Alert>
        <CopyableText label="Recovery codes" value={step.recoveryCodes.join('\n')} multiline />
        <div>
          <Button
            variant="contained"
            onClick={() => {
              setStep({ kind: 'idle' });
              void client.invalidateQueries({ queryKey: sessionKeys.current, exact: true });
            }}
          >
            I have saved them
          </Button>
        </div>
      </Stack>
    );
  }

  if (step.kind === 'confirm') {
    return (
      <ConfirmCode
        enrolment={step.enrolment}
        onConfirmed={(recoveryCodes) => {
          setStep({ kind: 'done', recoveryCodes });
        }}
        // A new secret needs the password again.
        onRestart={() => {
          setStep({ kind: 'idle' });
        }}
      />
    );
  }

  if (user.totpEnabled) {
    return (
      <Alert severity="success">
        Two-step sign-in is on. If you lose your authenticator and your recovery codes, an
        administrator can reset it.
      </Alert>
    );
  }

  return (
    <StartEnrolment
      onStarted={(enrolment) => {
        setStep({ kind: 'confirm', enrolment });
      }}
    />
  );
}
