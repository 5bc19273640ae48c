import GppBadOutlined from '@mui/icons-material/GppBadOutlined';
import GppGoodOutlined from '@mui/icons-material/GppGoodOutlined';
import RefreshIcon from '@mui/icons-material/Refresh';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  formatAuditAnchor,
  parseAuditAnchor,
  type AuditChainHead,
  type AuditVerifyResponse,
} from '@paydesk/shared/api';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ReactNode, type SyntheticEvent } from 'react';
import { CopyButton } from '../../../components/copyable-text';
import { describeError } from '../../../lib/api-client';
import { formatCount, formatUtc } from '../../../lib/format';
import { auditKeys, auditVerifyQueryOptions } from '../api/audit';

type ChainReason = Exclude<
  NonNullable<AuditVerifyResponse['reason']>,
  'anchor_missing' | 'anchor_mismatch'
>;

const REASONS: Record<ChainReason, string> = {
  hash_mismatch: 'its content does not match its hash (edited after it was written)',
  chain_mismatch: 'it does not point at the hash of the row before it',
  sequence_gap: 'a row is missing before it',
};

interface Verdict {
  label: string;
  detail: string;
  tone: 'success' | 'error' | 'warning' | 'default';
}

/**
 * Which row records the verification: it is written after the head was read, so the log (and the
 * list, refreshed after each verification) holds one row more than the head.
 */
function recordedAs(result: AuditVerifyResponse): string {
  if (result.recordedSeq !== undefined) {
    return ` This check is recorded as row #${result.recordedSeq}.`;
  }
  // The page's own check (on opening, or on going back to the chain alone), which found nothing
  // wrong: not written to the log.
  return result.ok
    ? ' Checked by the page itself, not recorded; Verify again records a check.'
    : '';
}

/** `result` of a verification, against the recorded head `anchor` (`<seq>:<hash>`) when given. */
function verdict(result: AuditVerifyResponse, anchor: string | null): Verdict {
  const shown = verdictOf(result, anchor);
  return { ...shown, detail: `${shown.detail}${recordedAs(result)}` };
}

function verdictOf(result: AuditVerifyResponse, anchor: string | null): Verdict {
  const anchorSeq = anchor === null ? undefined : parseAuditAnchor(anchor)?.seq;
  if (result.ok) {
    if (result.verifiedUpToSeq === null) {
      return {
        tone: 'success',
        label: 'Chain verified (no rows yet)',
        detail: 'The audit log is empty.',
      };
    }
    const against =
      anchorSeq === undefined ? '' : ` Row #${anchorSeq} still has the hash you recorded.`;
    return {
      tone: 'success',
      label: `Chain verified up to row ${result.verifiedUpToSeq}`,
      detail: `${formatCount(result.rowsChecked)} rows checked; every hash matches.${against}`,
    };
  }
  const seq = result.firstBrokenSeq ?? '?';
  // Said without blame: a head copied or pasted wrongly is the likelier cause, so both are named.
  if (result.reason === 'anchor_missing') {
    const end =
      result.head === null ? 'the log is empty' : `the log ends at row #${result.head.seq}`;
    return {
      tone: 'error',
      label: 'Recorded head not found',
      detail: `There is no row #${seq}: ${end}. Either the head was copied wrongly (compare it with where you kept it) or rows were removed from the end of the log since you recorded it.`,
    };
  }
  if (result.reason === 'anchor_mismatch') {
    return {
      tone: 'error',
      label: 'Recorded head does not match',
      detail: `Rows up to #${seq} do not match the recorded head: row #${seq} has another hash. Either the head was copied wrongly (compare it with where you kept it) or those rows were changed since you recorded it.`,
    };
  }
  const reason = result.reason ? REASONS[result.reason] : 'the chain does not verify there';
  return {
    tone: 'error',
    label: `Chain broken at row ${seq}`,
    detail:
      result.verifiedUpToSeq === null
        ? `No row verifies: ${reason}.`
        : `Rows up to ${result.verifiedUpToSeq} verify; row ${seq} does not: ${reason}.`,
  };
}

/** `abcd1234…5678ef90`: enough to compare by eye; the copy button copies it whole. */
function shortHash(hash: string): string {
  return hash.length > 16 ? `${hash.slice(0, 8)}…${hash.slice(-8)}` : hash;
}

/**
 * `text` with `icon` right after it, never apart: a word joiner before the icon leaves no break
 * between them, so on a narrow screen the icon wraps with the last word instead of standing alone
 * on a line of its own. (The text stays one text node: it reads, and is found, whole.)
 */
function TextThenIcon({ text, icon }: { text: string; icon: ReactNode }) {
  return (
    <>
      {text}
      <Box component="span" sx={{ whiteSpace: 'nowrap' }}>
        {'\u2060'}
        <Box component="span" sx={{ display: 'inline-flex', verticalAlign: 'middle', ml: 0.25 }}>
          {icon}
        </Box>
      </Box>
    </>
  );
}

/** The head to record outside Paydesk: the chain alone cannot show a rewrite or a cut end. */
function ChainHead({ head }: { head: AuditChainHead }) {
  return (
    <Stack spacing={0.5}>
      <Typography
        variant="body2"
        component="div"
        title={`${head.hash} (written ${formatUtc(head.createdAt)})`}
      >
        <TextThenIcon
          text={`Chain head: row #${head.seq}, hash ${shortHash(head.hash)}`}
          icon={<CopyButton label="chain head" value={formatAuditAnchor(head)} />}
        />
      </Typography>
      <Typography variant="body2" color="text.secondary">
        Keep a copy of it outside Paydesk (your audit notes, a ticket): verifying against it later
        shows whether rows up to it were removed or rewritten, which the chain alone cannot.
      </Typography>
    </Stack>
  );
}

/** What is wrong with `text` as a recorded head, or null when it is one. */
function anchorProblem(text: string): string | null {
  if (text === '') return 'Enter the head you recorded, as row:hash.';
  if (parseAuditAnchor(text) !== null) return null;
  const [row, hash, ...rest] = text.split(':');
  if (hash === undefined || rest.length > 0) {
    return 'Write the row number, one colon, then the hash (row:hash).';
  }
  if (!/^[1-9][0-9]{0,14}$/.test(row ?? '')) return 'The row must be a whole number from 1.';
  return 'The hash must be 64 characters, each 0–9 or a–f.';
}

/**
 * Verifies against a head recorded earlier (`<seq>:<hash>`). `onForget` drops the verdict against
 * the last head: every attempt and every edit does, so a verdict never stays beside a field that no
 * longer holds the head it was about (an invalid head shows its error and the chain alone).
 */
function AnchorForm({
  active,
  onVerify,
  onForget,
}: {
  active: boolean;
  onVerify: (anchor: string) => void;
  onForget: () => void;
}) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (event: SyntheticEvent<HTMLFormElement>) => {
    event.preventDefault();
    // Hex is the same in either case; pasted text often carries spaces around it and its colon.
    const anchor = text
      .trim()
      .replace(/\s*:\s*/g, ':')
      .toLowerCase();
    const found = anchorProblem(anchor);
    setProblem(found);
    if (found === null) onVerify(anchor);
    else onForget();
  };
  return (
    <form aria-label="Verify against a recorded head" onSubmit={submit} noValidate>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: 'flex-start' }}>
        <TextField
          label="Recorded head (row:hash)"
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            // The error and the verdict were about the text as it was.
            setProblem(null);
            onForget();
          }}
          error={problem !== null}
          helperText={problem ?? 'A chain head you copied earlier and kept outside Paydesk.'}
          size="small"
          sx={{ flex: 1, minWidth: 0, width: '100%' }}
          slotProps={{
            htmlInput: { spellCheck: false, style: { fontFamily: 'ui-monospace, monospace' } },
          }}
        />
        <Button type="submit" variant="outlined" sx={{ flexShrink: 0 }}>
          Verify against it
        </Button>
        {active ? (
          <Button
            sx={{ flexShrink: 0 }}
            onClick={() => {
              setText('');
              setProblem(null);
              onForget();
            }}
          >
            Verify chain only
          </Button>
        ) : null}
      </Stack>
    </form>
  );
}

/**
 * Walks the hash chain on the server and says whether the log is intact, and up to where; shows
 * the chain's head to record outside Paydesk, and verifies against a head recorded earlier.
 */
export function ChainBadge() {
  const client = useQueryClient();
  const [anchor, setAnchor] = useState<string | null>(null);
  // The check on opening the page (and on coming back to it) is the page's own: automatic. One a
  // person asks for, Verify again or a recorded head, is explicit, and always recorded.
  const verify = useQuery(
    auditVerifyQueryOptions(anchor, anchor === null ? 'automatic' : 'explicit'),
  );
  const verifyAgain = () => {
    // Into the same query (the badge shows it as any answer), asked as the person's own check.
    client
      .query({ ...auditVerifyQueryOptions(anchor, 'explicit'), staleTime: 0 })
      .catch(() => undefined);
  };
  // Each verification writes a row: once one is answered, the list is read again so that its
  // count and newest rows include that row. Not for a verdict answered before (cached from an
  // earlier visit, or of a head verified before): the list read since holds its row already.
  const answeredAt = Math.max(verify.dataUpdatedAt, verify.errorUpdatedAt);
  const seen = useRef(answeredAt);
  // (A check not recorded wrote no row: the list stands.)
  const wroteRow = verify.data?.recordedSeq !== undefined || verify.isError;
  useEffect(() => {
    if (answeredAt <= seen.current) return;
    seen.current = answeredAt;
    if (wroteRow) void client.invalidateQueries({ queryKey: auditKeys.lists });
  }, [answeredAt, client, wroteRow]);
  const verifyAgainst = (next: string) => {
    // Each attempt is answered afresh, the same head again too: its earlier verdict (cached for a
    // minute) is dropped, so the badge says "Verifying…" until this attempt's reply.
    void client.resetQueries({ queryKey: auditKeys.verifyAgainst(next), exact: true });
    setAnchor(next);
  };
  const shown: Verdict = verify.isPending
    ? { tone: 'default', label: 'Verifying chain…', detail: 'Checking every row’s hash.' }
    : verify.isError
      ? { tone: 'warning', label: 'Chain not verified', detail: describeError(verify.error) }
      : verdict(verify.data, anchor);
  const icon =
    shown.tone === 'success' ? (
      <GppGoodOutlined />
    ) : shown.tone === 'error' ? (
      <GppBadOutlined />
    ) : undefined;
  const head = verify.data?.head ?? null;
  return (
    <Stack spacing={1.5}>
      <Stack
        direction="row"
        spacing={1}
        sx={{ alignItems: 'center', flexWrap: 'wrap' }}
        role="status"
        aria-live="polite"
      >
        <Chip
          {...(icon ? { icon } : {})}
          label={shown.label}
          color={shown.tone}
          variant={shown.tone === 'error' ? 'filled' : 'outlined'}
        />
        <Typography variant="body2" component="div" color="text.secondary">
          <TextThenIcon
            text={shown.detail}
            icon={
              <IconButton
                aria-label="Verify the chain again"
                title="Verify again"
                size="small"
                disabled={verify.isFetching}
                onClick={verifyAgain}
              >
                <RefreshIcon fontSize="small" />
              </IconButton>
            }
          />
        </Typography>
      </Stack>
      {head === null ? null : <ChainHead head={head} />}
      <AnchorForm
        active={anchor !== null}
        onVerify={verifyAgainst}
        onForget={() => {
          if (anchor === null) return;
          // Back to the chain alone, as it is now: the verdict read before (on opening the page)
          // would show an old head, short of the rows each check against a head has written since.
          void client.resetQueries({ queryKey: auditKeys.verifyAgainst(null), exact: true });
          setAnchor(null);
        }}
      />
    </Stack>
  );
}
