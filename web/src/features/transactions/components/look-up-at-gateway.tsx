import Search from '@mui/icons-material/Search';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import { lazy, Suspense, useState } from 'react';
import { useSession } from '../../auth/components/session-context';
import { canLookUp } from '../api/permissions';

const LookupDialog = lazy(() => import('./lookup-dialog'));

/**
 * A search that found nothing may name an order Paydesk has not learned yet: the status lookup
 * asks the gateway, with the search term filled in. `align`: centred under an empty list, at the
 * start of a not-found page's notice.
 */
export function LookUpAtGateway({
  term,
  align = 'center',
}: {
  term: string;
  align?: 'center' | 'flex-start';
}) {
  const { user } = useSession();
  const [open, setOpen] = useState(false);
  if (!canLookUp(user.roles)) return null;
  return (
    <Stack spacing={1} sx={{ mt: 2, alignItems: align }}>
      <span>
        Paydesk lists only the orders it has learned (from callbacks and lookups); the gateway may
        know “{term}”.
      </span>
      <Button
        variant="outlined"
        startIcon={<Search />}
        onClick={() => {
          setOpen(true);
        }}
      >
        Look up “{term}” at the gateway
      </Button>
      <Suspense fallback={null}>
        {open ? (
          <LookupDialog
            initialTerm={term}
            onClose={() => {
              setOpen(false);
            }}
          />
        ) : null}
      </Suspense>
    </Stack>
  );
}
