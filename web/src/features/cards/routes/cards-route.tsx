import EventRepeatOutlined from '@mui/icons-material/EventRepeatOutlined';
import Replay from '@mui/icons-material/Replay';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Link as RouterLink, useLocation, useSearchParams } from 'react-router';
import { EmptyState, ErrorState, LoadingState } from '../../../components/page-states';
import { PageHeader } from '../../../components/page-header';
import { RequireRoles } from '../../auth/components/require-roles';
import { useSession } from '../../auth/components/session-context';
import { SCREENS } from '../../shell/navigation';
import { CARD_REF_LIST_LIMIT, cardRefListQueryOptions } from '../api/cards';
import { CardInfoForm } from '../components/card-info-form';
import { CardRefTable } from '../components/card-ref-table';

const RebillDialog = lazy(() => import('../components/rebill-dialog'));

function CardsScreen() {
  const { user } = useSession();
  const [params, setParams] = useSearchParams();
  const { key: chosenAt } = useLocation();
  const ref = params.get('ref') ?? '';
  // The reference the rebill dialog opens with (the chosen one, or a row's); null: closed. Kept
  // here, not read from the address: a row's Rebill changes both, and the address follows later.
  const [rebilling, setRebilling] = useState<string | null>(null);
  const canRebill = user.roles.includes('finance');
  const refs = useQuery(cardRefListQueryOptions(CARD_REF_LIST_LIMIT));
  return (
    <>
      <PageHeader
        title="Cards"
        actions={
          canRebill ? (
            // One row: the description wraps rather than the buttons.
            <Stack direction="row" spacing={1} sx={{ flexShrink: 0 }}>
              <Button
                variant="outlined"
                startIcon={<EventRepeatOutlined />}
                component={RouterLink}
                to={`/subscriptions?${new URLSearchParams({ create: '1', ref }).toString()}`}
                sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}
              >
                New subscription
              </Button>
              <Button
                variant="contained"
                startIcon={<Replay />}
                sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}
                onClick={() => {
                  setRebilling(ref);
                }}
              >
                Rebill a card
              </Button>
            </Stack>
          ) : undefined
        }
      >
        Stored cards by their card reference: the masked card (asked with a reason, which is
        audited){canRebill ? ', rebills and subscriptions' : ''}. An order’s detail creates a card
        reference.
      </PageHeader>
      <Stack spacing={2}>
        <Paper variant="outlined" sx={{ p: 2, maxWidth: 720 }}>
          <CardInfoForm
            initialRef={ref}
            chosenAt={chosenAt}
            onRefChange={(next) => {
              if (next !== ref) setParams(new URLSearchParams({ ref: next }), { replace: true });
            }}
          />
        </Paper>
        <Paper variant="outlined" component="section" aria-labelledby="known-card-refs">
          <Typography variant="h2" id="known-card-refs" sx={{ px: 2, pt: 2, pb: 1 }}>
            Card references Paydesk knows
          </Typography>
          {refs.isPending ? (
            <LoadingState label="Loading card references…" />
          ) : refs.isError ? (
            <ErrorState
              error={refs.error}
              what="the card references"
              onRetry={() => void refs.refetch()}
            />
          ) : refs.data.items.length === 0 ? (
            <EmptyState title="No card references yet.">
              Finance makes one on an approved order’s detail (Create card reference).
            </EmptyState>
          ) : (
            <CardRefTable
              items={refs.data.items}
              onRebill={
                canRebill
                  ? (cardRefId) => {
                      setParams(new URLSearchParams({ ref: cardRefId }), { replace: true });
                      setRebilling(cardRefId);
                    }
                  : undefined
              }
            />
          )}
        </Paper>
      </Stack>
      <Suspense fallback={null}>
        {rebilling === null ? null : (
          <RebillDialog
            cardRefId={rebilling}
            onClose={() => {
              setRebilling(null);
            }}
          />
        )}
      </Suspense>
    </>
  );
}

export default function CardsRoute() {
  return (
    <RequireRoles roles={SCREENS.cards.roles} what="the cards">
      <CardsScreen />
    </RequireRoles>
  );
}
