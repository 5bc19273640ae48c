import { moneyRolesAdded, ROLE_LABELS, rolesRefusal, type Role } from '@paydesk/shared/api';
import type { FieldError, Resolver, UseFormRegisterReturn } from 'react-hook-form';
import { ReasonField } from './reason-field';

/** The question for roles that add Finance, Operations or both: "… need Finance and Operations?" */
export function moneyRoleQuestion(added: readonly Role[]): string {
  return `Why does this account need ${added.map((role) => ROLE_LABELS[role]).join(' and ')}?`;
}

/**
 * The money roles the dialog asks a reason for: those the chosen roles add (`moneyRolesAdded`),
 * none while the roles field already says the set is refused (Auditor with a money role, or a
 * money role given to oneself): a set that cannot be saved is not explained first.
 */
export function moneyRolesToExplain(change: {
  roles: readonly Role[];
  before?: readonly Role[];
  self?: boolean;
}): Role[] {
  return rolesRefusal(change) === undefined ? moneyRolesAdded(change.roles, change.before) : [];
}

/**
 * `resolver` checking the reason only while the roles ask one (`moneyRolesToExplain`). The field
 * shows only then, but what was typed in it stays in the form: Auditor ticked and unticked again,
 * or a money role unticked and ticked again, shows the reason as it was typed. While no reason is
 * asked, it is neither checked nor sent (the resolver's output is what the dialog sends).
 */
export function askedReasonOnly<
  TInput extends { roles: Role[]; reason?: string | undefined },
  TContext,
  TOutput,
>(
  resolver: Resolver<TInput, TContext, TOutput>,
  change: { before?: readonly Role[]; self?: boolean } = {},
): Resolver<TInput, TContext, TOutput> {
  return (values, context, options) =>
    resolver(
      moneyRolesToExplain({ roles: values.roles, ...change }).length > 0
        ? values
        : { ...values, reason: undefined },
      context,
      options,
    );
}

/**
 * Why an account is given a money role (`added`, from the shared `moneyRolesAdded`): asked like
 * the reason to disable a user (3 to 500 characters, several lines), and kept in the audit log.
 * Shown only while the chosen roles add one (the dialogs' resolvers: `askedReasonOnly`).
 */
export function MoneyRoleReasonField({
  added,
  error,
  registration,
}: {
  added: readonly Role[];
  error: FieldError | undefined;
  registration: UseFormRegisterReturn;
}) {
  return <ReasonField label={moneyRoleQuestion(added)} error={error} {...registration} />;
}
