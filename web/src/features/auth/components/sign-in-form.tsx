import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { LoginRequestSchema, type LoginRequest, type SessionResponse } from '@paydesk/shared/api';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { describeError, isApiError } from '../../../lib/api-client';
import { signIn } from '../api/session';

type LoginInput = z.input<typeof LoginRequestSchema>;

function messageFor(error: unknown): string {
  if (!isApiError(error)) return describeError(error);
  switch (error.code) {
    case 'INVALID_CREDENTIALS':
      return 'The e-mail address or the password is not right.';
    case 'TOTP_INVALID':
      // Said only after the password was right: the code was right too, but signed in already.
      return error.details?.fields?.some((f) => f.rule === 'already_used') === true
        ? 'That code was already used. Wait for the next code in your app (a new one every 30 seconds), or use a recovery code.'
        : 'That code is not valid. Use the current code from your app, or a recovery code.';
    default:
      return describeError(error);
  }
}

/**
 * The code without the spaces authenticator apps show in it ('504 993' → '504993'); a recovery
 * code keeps its hyphen (the BFF takes it with or without, in either case).
 */
function codeAsSent(code: string | undefined): string | undefined {
  return code?.replace(/\s+/g, '');
}

/**
 * E-mail and password; a second step asks for the TOTP code when the server says it is required.
 * With `account` the e-mail is that one and cannot be changed (signing in again after the session
 * ended); `onRefused` hears every refusal but the request for the code; `onSent`, every attempt
 * as it goes.
 */
export function SignInForm({
  onSignedIn,
  account,
  onRefused,
  onSent,
}: {
  onSignedIn: (session: SessionResponse) => void;
  account?: string;
  onRefused?: (error: unknown) => void;
  onSent?: () => void;
}) {
  const [needsTotp, setNeedsTotp] = useState(false);
  // A recovery code has letters: a phone's number pad (the app's code) cannot type it (QA).
  const [recoveryCode, setRecoveryCode] = useState(false);
  const form = useForm<LoginInput, unknown, LoginRequest>({
    resolver: zodResolver(LoginRequestSchema),
    defaultValues: { email: account ?? '', password: '' },
  });
  const { register, handleSubmit, formState, setFocus } = form;

  const mutation = useMutation({
    mutationFn: signIn,
    onSuccess: onSignedIn,
    onError: (error) => {
      if (isApiError(error) && error.code === 'TOTP_REQUIRED') {
        setNeedsTotp(true);
      } else {
        onRefused?.(error);
      }
    },
  });

  // The code field exists only after the step is shown: focus it once it is rendered.
  useEffect(() => {
    if (needsTotp) setFocus('totp');
  }, [needsTotp, setFocus]);

  const failure =
    mutation.error && !(isApiError(mutation.error) && mutation.error.code === 'TOTP_REQUIRED')
      ? messageFor(mutation.error)
      : null;

  return (
    <form
      noValidate
      aria-label="Sign in"
      onSubmit={(event) => {
        void handleSubmit((values) => {
          onSent?.();
          mutation.mutate(
            needsTotp
              ? { ...values, totp: codeAsSent(values.totp) }
              : { email: values.email, password: values.password },
          );
        })(event);
      }}
    >
      <Stack spacing={2}>
        {failure ? (
          <Alert severity="error" role="alert">
            {failure}
          </Alert>
        ) : null}
        <TextField
          label="E-mail"
          type="email"
          autoComplete="username"
          autoFocus={account === undefined}
          required
          disabled={needsTotp}
          slotProps={{ htmlInput: { readOnly: account !== undefined } }}
          error={formState.errors.email !== undefined}
          helperText={formState.errors.email ? 'Enter a valid e-mail address.' : undefined}
          {...register('email')}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          autoFocus={account !== undefined}
          required
          disabled={needsTotp}
          error={formState.errors.password !== undefined}
          helperText={formState.errors.password ? 'Enter your password.' : undefined}
          {...register('password')}
        />
        {needsTotp ? (
          <>
            <TextField
              label={recoveryCode ? 'Recovery code' : 'Authentication code'}
              autoComplete={recoveryCode ? 'off' : 'one-time-code'}
              required
              slotProps={{ htmlInput: { inputMode: recoveryCode ? 'text' : 'numeric' } }}
              error={formState.errors.totp !== undefined}
              helperText={
                recoveryCode
                  ? 'One of the recovery codes you saved (XXXXX-XXXXX); each works once.'
                  : formState.errors.totp
                    ? 'Enter the code from your authenticator app.'
                    : 'The 6-digit code from your authenticator app, or a recovery code.'
              }
              {...register('totp', { required: true })}
            />
            <Button
              size="small"
              sx={{ alignSelf: 'flex-start' }}
              onClick={() => {
                setRecoveryCode((current) => !current);
                setFocus('totp');
              }}
            >
              {recoveryCode ? 'Use the code from your app' : 'Use a recovery code'}
            </Button>
          </>
        ) : null}
        <Button type="submit" variant="contained" size="large" loading={mutation.isPending}>
          {needsTotp ? 'Verify and sign in' : 'Sign in'}
        </Button>
        {needsTotp && account === undefined ? (
          <Button
            onClick={() => {
              setNeedsTotp(false);
              setRecoveryCode(false);
              form.resetField('totp');
              mutation.reset();
            }}
          >
            Use another account
          </Button>
        ) : null}
      </Stack>
    </form>
  );
}
