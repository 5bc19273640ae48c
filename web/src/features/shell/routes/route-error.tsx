import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** a change (the location) clears a shown error, so navigating away recovers */
  resetKey: string;
  children: ReactNode;
}

interface State {
  failedAt: string | null;
}

/** Last resort for a render error or a chunk that failed to load (e.g. after a deploy). */
export class RouteErrorBoundary extends Component<Props, State> {
  override state: State = { failedAt: null };

  static getDerivedStateFromError(): Partial<State> {
    return { failedAt: '' };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    this.setState({ failedAt: this.props.resetKey });
    console.error('screen failed to render', error, info.componentStack);
  }

  override componentDidUpdate(previous: Props): void {
    if (this.state.failedAt !== null && previous.resetKey !== this.props.resetKey) {
      this.setState({ failedAt: null });
    }
  }

  override render() {
    if (this.state.failedAt === null) return this.props.children;
    return (
      <Box sx={{ p: 4 }}>
        <Alert
          severity="error"
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
          <AlertTitle>Something went wrong</AlertTitle>
          This screen failed to load. Reloading usually fixes it.
        </Alert>
      </Box>
    );
  }
}
