import Check from '@mui/icons-material/Check';
import ContentCopy from '@mui/icons-material/ContentCopy';
import IconButton from '@mui/material/IconButton';
import InputAdornment from '@mui/material/InputAdornment';
import TextField from '@mui/material/TextField';
import { useState } from 'react';

/** Read-only text with a copy button; the text stays selectable for browsers without clipboard access. */
export function CopyableText({
  label,
  value,
  multiline = false,
}: {
  label: string;
  value: string;
  multiline?: boolean;
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
    <TextField
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
              <IconButton
                aria-label={copied ? `${label} copied` : `Copy ${label}`}
                title={copied ? 'Copied' : 'Copy'}
                onClick={() => void copy()}
                edge="end"
              >
                {copied ? <Check fontSize="small" /> : <ContentCopy fontSize="small" />}
              </IconButton>
            </InputAdornment>
          ),
        },
      }}
    />
  );
}
