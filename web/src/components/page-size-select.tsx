import NativeSelect from '@mui/material/NativeSelect';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useId } from 'react';

/** "Rows per page" for the pagers: a labelled native select (no Popper, keyboard friendly). */
export function PageSizeSelect({
  pageSize,
  pageSizes,
  onPageSizeChange,
}: {
  pageSize: number;
  pageSizes: readonly number[];
  onPageSizeChange: (pageSize: number) => void;
}) {
  const sizeId = useId();
  return (
    <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
      <Typography component="label" htmlFor={sizeId} variant="body2">
        Rows per page
      </Typography>
      <NativeSelect
        value={pageSize}
        onChange={(event) => {
          onPageSizeChange(Number(event.target.value));
        }}
        inputProps={{ id: sizeId }}
        disableUnderline
        sx={{ fontSize: 'body2.fontSize' }}
      >
        {pageSizes.map((size) => (
          <option key={size} value={size}>
            {size}
          </option>
        ))}
      </NativeSelect>
    </Stack>
  );
}
