import Search from '@mui/icons-material/Search';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useSession } from '../../auth/components/session-context';
import { canLookUp } from '../../transactions/api/permissions';

const LookupDialog = lazy(() => import('../../transactions/components/lookup-dialog'));

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** The status lookup, from anywhere: a button in the app bar and Ctrl-K (⌘-K on a Mac). */
export function LookupLauncher() {
  const { user } = useSession();
  const allowed = canLookUp(user.roles);
  const [open, setOpen] = useState(false);

  useEffect(() => {
    if (!allowed) return undefined;
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
    };
  }, [allowed]);

  if (!allowed) return null;
  const shortcut = isMac ? '⌘K' : 'Ctrl+K';
  return (
    <>
      <Button
        color="inherit"
        startIcon={<Search />}
        onClick={() => {
          setOpen(true);
        }}
        aria-keyshortcuts="Control+K Meta+K"
        aria-label={`Look up order ${shortcut}`}
        title={`Look up an order (${shortcut})`}
        sx={{
          mr: 1,
          textTransform: 'none',
          minWidth: 0,
          '& .MuiButton-startIcon': { mr: { xs: 0, sm: 1 } },
        }}
      >
        {/* On a phone the icon alone; the name stays in aria-label. */}
        <Box component="span" sx={{ display: { xs: 'none', sm: 'inline' }, whiteSpace: 'nowrap' }}>
          Look up order{' '}
          <kbd style={{ marginLeft: 4, fontSize: '0.75em', opacity: 0.7 }}>{shortcut}</kbd>
        </Box>
      </Button>
      <Suspense fallback={null}>
        {open ? (
          <LookupDialog
            onClose={() => {
              setOpen(false);
            }}
          />
        ) : null}
      </Suspense>
    </>
  );
}
