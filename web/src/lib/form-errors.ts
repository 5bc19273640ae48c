import type { FieldPath, FieldValues, UseFormSetError } from 'react-hook-form';
import { isApiError } from './api-client';

/**
 * Puts the server's field errors next to the fields they name: a VALIDATION_FAILED, or any other
 * refusal that names a field (a card reference the gateway does not know: 404 on `cardRefId`).
 * Returns true when at least one landed on a field of this form (the caller then needs no generic
 * alert); the others are said by `describeError`, with the field's label.
 */
export function applyServerFieldErrors<T extends FieldValues>(
  error: unknown,
  setError: UseFormSetError<T>,
  fields: readonly FieldPath<T>[],
): boolean {
  if (!isApiError(error)) return false;
  let placed = false;
  for (const fieldError of error.fieldErrors) {
    // `roles.1` belongs to the `roles` control.
    const name = fields.find(
      (field) => fieldError.path === field || fieldError.path.startsWith(`${field}.`),
    );
    if (name === undefined) continue;
    setError(name, { type: 'server', message: fieldError.message });
    placed = true;
  }
  return placed;
}
