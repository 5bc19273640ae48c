import GppBadOutlined from '@mui/icons-material/GppBadOutlined';
import GppGoodOutlined from '@mui/icons-material/GppGoodOutlined';
import RefreshIcon from '@mui/icons-material/Refresh';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { AuditVerifyResponse } from '@paydesk/shared/api';
import { useQuery } from '@tanstack/react-query';
import { describeError } from '../../../lib/api-client';
import { formatCount } from '../../../lib/format';
import { auditVerifyQueryOptions } from '../api/audit';

const REASONS: Record<NonNullable<AuditVerifyResponse['reason']>, string> = {
  hash_mismatch: 'its content does not match its hash (edited after it was written)',
  chain_mismatch: 'it does not point at the hash of the row before it',
  sequence_gap: 'a row is missing before it',
};

interface Verdict {
  label: string;
  detail: string;
  tone: 'success' | 'error' | 'warning' | 'default';
}

function verdict(result: AuditVerifyResponse): Verdict {
  if (result.ok) {
    if (result.verifiedUpToSeq === null) {
      return {
        tone: 'success',
        label: 'Chain verified (no rows yet)',
        detail: 'The audit log is empty.',
      };
    }
    return {
      tone: 'success',
      label: `Chain verified up to row ${result.verifiedUpToSeq}`,
      detail: `${formatCount(result.rowsChecked)} rows checked; every hash matches.`,
    };
  }
  const reason = result.reason ? REASONS[result.reason] : 'the chain does not verify there';
  return {
    tone: 'error',
    label: `Chain broken at row ${result.firstBrokenSeq ?? '?'}`,
    detail:
      result.verifiedUpToSeq === null
        ? `No row verifies: ${reason}.`
        : `Rows up to ${result.verifiedUpToSeq} verify; row ${result.firstBrokenSeq ?? '?'} does not: ${reason}.`,
  };
}

/** Walks the hash chain on the server and says whether the log is intact, and up to where. */
export function ChainBadge() {
  const verify = useQuery(auditVerifyQueryOptions());
  const shown: Verdict = verify.isPending
    ? { tone: 'default', label: 'Verifying chain…', detail: 'Checking every row’s hash.' }
    : verify.isError
      ? { tone: 'warning', label: 'Chain not verified', detail: describeError(verify.error) }
      : verdict(verify.data);
  const icon =
    shown.tone === 'success' ? (
      <GppGoodOutlined />
    ) : shown.tone === 'error' ? (
      <GppBadOutlined />
    ) : undefined;
  return (
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
      <Typography variant="body2" color="text.secondary">
        {shown.detail}
      </Typography>
      <IconButton
        aria-label="Verify the chain again"
        title="Verify again"
        size="small"
        disabled={verify.isFetching}
        onClick={() => void verify.refetch()}
      >
        <RefreshIcon fontSize="small" />
      </IconButton>
    </Stack>
  );
}
