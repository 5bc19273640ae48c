import Button from '@mui/material/Button';
import { Link } from 'react-router';
import { EmptyState } from '../../../components/page-states';
import { PageHeader } from '../../../components/page-header';

export default function NotFoundRoute() {
  return (
    <>
      <PageHeader title="Page not found" />
      <EmptyState title="There is no screen at this address.">
        <Button component={Link} to="/" sx={{ mt: 2 }} variant="outlined">
          Go to your start screen
        </Button>
      </EmptyState>
    </>
  );
}
