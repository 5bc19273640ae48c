import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { isStaleChunkError } from '../stale-build';

interface Props {
  /** a change (the location) clears a shown error, so navigating away recovers */
  resetKey: string;
  children: ReactNode;
}

interface State {
  failedAt: string | null;
  /** a chunk failed to load: the build this page runs was replaced by a deploy */
  stale: boolean;
}

/** Last resort for a render error or a chunk that failed to load (e.g. after a deploy). */
export class RouteErrorBoundary extends Component<Props, State> {
  override state: State = { failedAt: null, stale: false };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    // Offline, any chunk fails to load: that is no sign of an update.
    return { failedAt: '', stale: isStaleChunkError(error) && navigator.onLine };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    this.setState({ failedAt: this.props.resetKey });
    console.error('screen failed to render', error, info.componentStack);
  }

  override componentDidUpdate(previous: Props): void {
    if (this.state.failedAt !== null && previous.resetKey !== this.props.resetKey) {
      this.setState({ failedAt: null, stale: false });
    }
  }

  override render() {
    if (this.state.failedAt === null) return this.props.children;
    return (
      <Box sx={{ p: 4 }}>
        <Alert
          severity={this.state.stale ? 'info' : 'error'}
          action={
            <Button
              color="inherit"
              size="small"
              onClick={() => {
                window.location.reload();
              }}
            >
              Reload
            </Button>
          }
        >
          {this.state.stale ? (
            // The page normally reloads by itself (stale-build.ts); this shows while it does, or
            // when it just did and the screen is still missing.
            <>
              <AlertTitle>Paydesk was updated: reload to get the new version</AlertTitle>
              This tab still runs the version from before the update, and the screen you opened is
              no longer there.
            </>
          ) : (
            <>
              <AlertTitle>Something went wrong</AlertTitle>
              This screen failed to load. Reloading usually fixes it.
            </>
          )}
        </Alert>
      </Box>
    );
  }
}
