import Check from '@mui/icons-material/Check';
import ContentCopy from '@mui/icons-material/ContentCopy';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { PRINT_HIDDEN_CLASS } from '../theme/print-styles';

/**
 * A small button that copies `value`; its name says what ("Copy Orderid"), then that it was
 * copied. For ids shown as text in a list of facts or a table cell.
 */
export function CopyButton({
  label,
  value,
  edge = false,
  size = 'small',
}: {
  label: string;
  value: string;
  edge?: 'end' | false;
  size?: 'small' | 'medium';
}) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <IconButton
      aria-label={copied ? `${label} copied` : `Copy ${label}`}
      title={copied ? 'Copied' : `Copy ${label}`}
      onClick={() => void copy()}
      edge={edge}
      size={size}
    >
      {copied ? <Check fontSize="small" /> : <ContentCopy fontSize="small" />}
    </IconButton>
  );
}

/**
 * Read-only text with a copy button; the text stays selectable for browsers without clipboard
 * access. On paper the field (whose one line would cut a long address off) gives way to the text.
 */
export function CopyableText({
  label,
  value,
  multiline = false,
}: {
  label: string;
  value: string;
  multiline?: boolean;
}) {
  return (
    <>
      <TextField
        className={PRINT_HIDDEN_CLASS}
        label={label}
        value={value}
        fullWidth
        multiline={multiline}
        slotProps={{
          htmlInput: {
            readOnly: true,
            spellCheck: false,
            style: { fontFamily: 'ui-monospace, monospace' },
          },
          input: {
            endAdornment: (
              <InputAdornment position="end">
                <CopyButton label={label} value={value} edge="end" size="medium" />
              </InputAdornment>
            ),
          },
        }}
      />
      <Typography
        component="p"
        variant="body2"
        sx={{ display: 'none', displayPrint: 'block', m: 0, overflowWrap: 'anywhere' }}
      >
        {label}:{' '}
        <Box component="code" sx={{ whiteSpace: multiline ? 'pre-wrap' : undefined }}>
          {value}
        </Box>
      </Typography>
    </>
  );
}

/** An id as code with its copy button beside it, e.g. in a list of facts. */
export function CopyableCode({ label, value }: { label: string; value: string }) {
  return (
    <span style={{ display: 'inline-flex', alignItems: 'center', gap: 2, maxWidth: '100%' }}>
      <code style={{ overflowWrap: 'anywhere' }}>{value}</code>
      <CopyButton label={label} value={value} />
    </span>
  );
}
