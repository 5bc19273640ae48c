import ChevronLeft from '@mui/icons-material/ChevronLeft';
import ChevronRight from '@mui/icons-material/ChevronRight';
import FirstPage from '@mui/icons-material/FirstPage';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { PageSizeSelect } from '../../../components/page-size-select';
import { formatCount } from '../../../lib/format';

/**
 * Page controls for keyset pagination: the server hands out a cursor for the next page only, so
 * "previous" walks back the cursors this tab has followed (kept in the history entry).
 */
export function KeysetPager({
  pageNumber,
  shown,
  pageSize,
  pageSizes,
  hasNext,
  hasPrevious,
  onFirst,
  onPrevious,
  onNext,
  onPageSizeChange,
}: {
  pageNumber: number | null;
  shown: number;
  pageSize: number;
  pageSizes: readonly number[];
  hasNext: boolean;
  hasPrevious: boolean;
  onFirst: () => void;
  onPrevious: () => void;
  onNext: () => void;
  onPageSizeChange: (pageSize: number) => void;
}) {
  const atFirst = pageNumber === 1;
  return (
    <Stack
      component="nav"
      aria-label="Pages"
      direction="row"
      spacing={2}
      sx={{ alignItems: 'center', justifyContent: 'flex-end', px: 2, py: 1, flexWrap: 'wrap' }}
    >
      <PageSizeSelect
        pageSize={pageSize}
        pageSizes={pageSizes}
        onPageSizeChange={onPageSizeChange}
      />
      <Typography variant="body2" aria-live="polite">
        {pageNumber === null ? 'A later page' : `Page ${formatCount(pageNumber)}`} ·{' '}
        {formatCount(shown)} {shown === 1 ? 'row' : 'rows'}
      </Typography>
      <div>
        <IconButton aria-label="First page" disabled={atFirst} onClick={onFirst}>
          <FirstPage />
        </IconButton>
        <IconButton aria-label="Previous page" disabled={!hasPrevious} onClick={onPrevious}>
          <ChevronLeft />
        </IconButton>
        <IconButton aria-label="Next page" disabled={!hasNext} onClick={onNext}>
          <ChevronRight />
        </IconButton>
      </div>
    </Stack>
  );
}
