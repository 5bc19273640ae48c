import { screen } from '@testing-library/react';
import { expect, it } from 'vitest';
import type { Role } from '@paydesk/shared/api';
import type { FakeBff } from './fake-bff';
import { renderApp } from './render-app';

/**
 * The tests of the states every list screen shows besides its rows: loading, failed (with a retry)
 * and forbidden. The screen keeps its own empty-state test, whose words differ.
 */
export function itShowsTheListStates({
  path,
  route,
  bffAs,
  reader,
  noAccess,
  loading,
  what,
  screenName = what,
}: {
  /** the screen's address, e.g. '/payouts' */
  path: string;
  /** the list's request, e.g. 'GET /api/payouts' */
  route: string;
  /** the screen's fake BFF with the signed-in user holding `roles` */
  bffAs: (roles: Role[]) => FakeBff;
  /** roles that open the screen */
  reader: Role[];
  /** roles that do not open it */
  noAccess: Role[];
  /** the loading label, e.g. 'Loading payouts…' */
  loading: string;
  /** the list in words, e.g. 'payouts' (said in "Could not load the payouts") */
  what: string;
  /** the screen in words, when not `what`, e.g. 'cards' */
  screenName?: string;
}) {
  it('when the list is on its way, then a loading state is shown', async () => {
    renderApp(
      path,
      bffAs(reader).on(route, () => 'hang'),
    );
    expect(await screen.findByText(loading)).toBeInTheDocument();
  });

  it('when the list fails, then an error with a retry is shown', async () => {
    renderApp(
      path,
      bffAs(reader).on(route, () => ({
        status: 500,
        body: { error: { code: 'INTERNAL', message: 'x', requestId: 'r' } },
      })),
    );
    expect(await screen.findByText(`Could not load the ${what}`)).toBeInTheDocument();
  });

  it(`when the roles do not open ${screenName}, then the forbidden state is shown`, async () => {
    renderApp(path, bffAs(noAccess));
    expect(await screen.findByText('Not available to your roles')).toBeInTheDocument();
  });
}
