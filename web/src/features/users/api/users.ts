import {
  ResetPasswordResponseSchema,
  ResetTotpResponseSchema,
  UnlockSignInResponseSchema,
  UserListResponseSchema,
  UserSchema,
  type CreateUserRequest,
  type ResetPasswordRequest,
  type ResetTotpRequest,
  type UnlockSignInRequest,
  type UpdateUserRequest,
} from '@paydesk/shared/api';
import { queryOptions } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export const userKeys = {
  all: ['users'] as const,
};

export function usersQueryOptions() {
  return queryOptions({
    queryKey: userKeys.all,
    queryFn: ({ signal }) => apiRequest('GET', '/api/users', UserListResponseSchema, { signal }),
  });
}

export function createUser(body: CreateUserRequest) {
  return apiRequest('POST', '/api/users', UserSchema, { body });
}

export function updateUser({ id, body }: { id: string; body: UpdateUserRequest }) {
  return apiRequest('PATCH', `/api/users/${encodeURIComponent(id)}`, UserSchema, { body });
}

/** Two-step sign-in off, with the reason the audit log keeps; the user's sessions end. */
export function resetUserTotp({ id, body }: { id: string; body: ResetTotpRequest }) {
  return apiRequest(
    'POST',
    `/api/users/${encodeURIComponent(id)}/reset-totp`,
    ResetTotpResponseSchema,
    { body },
  );
}

/** A new temporary password for the user (never one's own); their sessions end. */
export function resetUserPassword({ id, body }: { id: string; body: ResetPasswordRequest }) {
  return apiRequest(
    'POST',
    `/api/users/${encodeURIComponent(id)}/reset-password`,
    ResetPasswordResponseSchema,
    { body },
  );
}

/** Clears the user's failed sign-ins (never one's own), with the reason the audit log keeps. */
export function unlockUserSignIn({ id, body }: { id: string; body: UnlockSignInRequest }) {
  return apiRequest(
    'POST',
    `/api/users/${encodeURIComponent(id)}/unlock-sign-in`,
    UnlockSignInResponseSchema,
    { body },
  );
}
