// How the new subscription's page learns that it was just created (the navigation's state): its
// heading then takes the keyboard focus, which the closed dialog left on the page's body.

export const CREATED_STATE = { subscriptionCreated: true } as const;

/** Whether a location's state is CREATED_STATE's. */
export function isCreatedState(state: unknown): boolean {
  return (
    typeof state === 'object' &&
    state !== null &&
    'subscriptionCreated' in state &&
    state.subscriptionCreated === true
  );
}
