import ChevronLeft from '@mui/icons-material/ChevronLeft';
import ChevronRight from '@mui/icons-material/ChevronRight';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { PageSizeSelect } from './page-size-select';
import { formatCount } from '../lib/format';

/**
 * Page controls for server-side pagination. (MUI's TablePagination brings Popper.js along, which
 * would push the audit route over its bundle budget; this is all the audit table needs.)
 */
export function Pager({
  pageIndex,
  pageSize,
  total,
  pageSizes,
  onPageIndexChange,
  onPageSizeChange,
}: {
  pageIndex: number;
  pageSize: number;
  total: number;
  pageSizes: readonly number[];
  onPageIndexChange: (pageIndex: number) => void;
  onPageSizeChange: (pageSize: number) => void;
}) {
  const first = total === 0 ? 0 : pageIndex * pageSize + 1;
  const last = Math.min(total, (pageIndex + 1) * pageSize);
  const lastPage = Math.max(0, Math.ceil(total / pageSize) - 1);
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
        {formatCount(first)}–{formatCount(last)} of {formatCount(total)}
      </Typography>
      <div>
        <IconButton
          aria-label="Previous page"
          disabled={pageIndex <= 0}
          onClick={() => {
            onPageIndexChange(pageIndex - 1);
          }}
        >
          <ChevronLeft />
        </IconButton>
        <IconButton
          aria-label="Next page"
          disabled={pageIndex >= lastPage}
          onClick={() => {
            onPageIndexChange(pageIndex + 1);
          }}
        >
          <ChevronRight />
        </IconButton>
      </div>
    </Stack>
  );
}
