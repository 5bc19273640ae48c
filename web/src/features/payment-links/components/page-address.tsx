import Box from '@mui/material/Box';
import { CopyableText } from '../../../components/copyable-text';

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
