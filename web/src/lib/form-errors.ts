import type { FieldPath, FieldValues, UseFormSetError } from 'react-hook-form';
import { isApiError } from './api-client';

/**
 * Puts the server's VALIDATION_FAILED field errors next to the fields they name. Returns true when
 * at least one landed on a field of this form (the caller then needs no generic alert).
 */
export function applyServerFieldErrors<T extends FieldValues>(
  error: unknown,
  setError: UseFormSetError<T>,
  fields: readonly FieldPath<T>[],
): boolean {
  if (!isApiError(error) || error.code !== 'VALIDATION_FAILED') return false;
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
