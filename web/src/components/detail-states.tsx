import Alert from '@mui/material/Alert';
import type { UseQueryResult } from '@tanstack/react-query';
import { Link as RouterLink } from 'react-router';
import { isNoSuchRecord } from '../lib/api-client';
import { PageHeader } from './page-header';
import { ErrorState, LoadingState } from './page-states';

/**
 * A detail page while its record is not there: loading, not found (saying so and leading back to
 * the list), or any other error with a retry. `what` names the record ("payout").
 */
export function DetailStates({
  query,
  what,
  back,
}: {
  query: UseQueryResult;
  what: string;
  back: { to: string; label: string };
}) {
  if (!query.isError) return <LoadingState label={`Loading the ${what}…`} />;
  if (isNoSuchRecord(query.error)) {
    return (
      <>
        <PageHeader title={`${what.charAt(0).toUpperCase()}${what.slice(1)} not found`} />
        <Alert severity="info">
          Paydesk knows no {what} with this address. Go back to{' '}
          <RouterLink to={back.to}>{back.label}</RouterLink>.
        </Alert>
      </>
    );
  }
  return (
    <ErrorState
      error={query.error}
      what={`the ${what}`}
      onRetry={() => void query.refetch()}
      asPage
    />
  );
}
