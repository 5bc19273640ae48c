import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import { CopyableText, CopyButton } from '../../../components/copyable-text';

/**
 * A link's page address, whole, to read and copy. In one line the field cut it off after the host
 * ('http://127.0.0.1:82…'), and every link's address began the same: the part that tells them
 * apart was hidden. So the field takes as many lines as the address needs, breaking it anywhere
 * (an address has no spaces to break at), with the copy button beside it as before.
 */
export function PageAddress({ label = 'Page address', value }: { label?: string; value: string }) {
  return (
    // The rule reaches MUI's hidden twin of the text area too, which measures the lines needed.
    <Box sx={{ '& textarea': { overflowWrap: 'anywhere' } }}>
      <CopyableText label={label} value={value} multiline />
    </Box>
  );
}

/** Characters of the address's end shown in a list: what tells one link's page from another's. */
const TAIL = 16;

/**
 * An address in a few characters, for a list row: its end ('…/hosted/800012/9f3c2a1b'), where every
 * link's address begins the same (the gateway's form page) and differs at its end; the scheme
 * goes, and a short address shows whole.
 */
export function shortAddress(value: string): string {
  const bare = value.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  return bare.length <= TAIL + 2 ? bare : `…${bare.slice(-TAIL)}`;
}

/**
 * A page address in a list row: one short line (its end; the whole in the title and on the link's
 * page) that opens the page in a new tab, and the copy button, always beside it. The whole address
 * in the row took four lines of a 240 px field, pushed the copy button off a 1024 px screen and
 * showed only 'htt' on a phone. About 150 px wide, it fits even a phone's first column.
 */
export function CompactPageAddress({ value }: { value: string }) {
  // The gateway's words: opened only as a web address (never `javascript:` or the like).
  const openable = /^https?:\/\//i.test(value);
  const shown = shortAddress(value);
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.25, maxWidth: '100%' }}>
      <Link
        {...(openable
          ? {
              href: value,
              target: '_blank',
              rel: 'noopener noreferrer',
              // The name begins with the text shown, so that a voice-control user who says what
              // they see reaches the link (WCAG 2.5.3, axe label-content-name-mismatch); it still
              // says what the link is and that it opens a new tab, and the whole address is its
              // description (the title), as a sighted user reads it on hover.
              'aria-label': `${shown}: open the page address in a new tab`,
            }
          : { component: 'span' })}
        title={value}
        variant="caption"
        sx={{
          fontFamily: 'ui-monospace, monospace',
          whiteSpace: 'nowrap',
          overflow: 'hidden',
          textOverflow: 'ellipsis',
          minWidth: 0,
        }}
      >
        {shown}
      </Link>
      <Box sx={{ flexShrink: 0 }}>
        <CopyButton label="Page address" value={value} />
      </Box>
    </Box>
  );
}
