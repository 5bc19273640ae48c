import Alert from '@mui/material/Alert';
import Snackbar from '@mui/material/Snackbar';
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

/** `warning`: an outcome not known yet (neither a success nor a failure). */
export type Severity = 'success' | 'warning' | 'error' | 'info';
interface Note {
  id: number;
  message: string;
  severity: Severity;
}

type Notify = (message: string, severity?: Severity) => void;

const NotifyContext = createContext<Notify | null>(null);

/** One snackbar for the whole app: every mutation reports success or failure through it. */
export function NotifierProvider({ children }: { children: ReactNode }) {
  const [note, setNote] = useState<Note | null>(null);
  const notify = useCallback<Notify>((message, severity = 'success') => {
    setNote({ id: Date.now(), message, severity });
  }, []);
  const value = useMemo(() => notify, [notify]);
  const close = () => {
    setNote(null);
  };
  return (
    <NotifyContext value={value}>
      {children}
      <Snackbar
        key={note?.id}
        open={note !== null}
        // What needs reading (a failure, an outcome not known yet) stays longer.
        autoHideDuration={
          note?.severity === 'error' || note?.severity === 'warning' ? 10_000 : 5_000
        }
        onClose={(_event, reason) => {
          if (reason !== 'clickaway') close();
        }}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
      >
        {note ? (
          <Alert severity={note.severity} variant="filled" onClose={close} sx={{ width: '100%' }}>
            {note.message}
          </Alert>
        ) : undefined}
      </Snackbar>
    </NotifyContext>
  );
}

export function useNotify(): Notify {
  const notify = useContext(NotifyContext);
  if (!notify) throw new Error('useNotify needs a NotifierProvider');
  return notify;
}
