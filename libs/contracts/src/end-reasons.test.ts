import { describe, expect, it } from 'vitest';
import {
  isAutomaticReason,
  isExplicitClose,
  isPermanentEnd,
  isRecoverableReason,
  isResetReason,
  reopenVerdict,
} from './end-reasons.js';
import { END_REASONS } from './lineage.schema.js';

describe('end reasons', () => {
  it('puts every reason in exactly one reopen class', () => {
    for (const reason of END_REASONS) {
      const classes = [isAutomaticReason(reason), isExplicitClose(reason), isPermanentEnd(reason)].filter(Boolean);
      expect(classes, reason).toHaveLength(1);
    }
  });
  it('[lifecycle.recoverable-reasons] [lifecycle.automatic-reasons] [lifecycle.final-ends] treats recoverable reasons as automatic, and resets as permanent boundaries', () => {
    for (const reason of ['agent_close', 'ws_orphan_reap', 'superseded_by_resume', 'startup_orphan_reap']) {
      expect(isRecoverableReason(reason)).toBe(true);
      expect(isAutomaticReason(reason)).toBe(true);
    }
    expect(isRecoverableReason('idle_timeout')).toBe(false);
    expect(isAutomaticReason('idle_timeout')).toBe(true);
    expect(isResetReason('daily')).toBe(true);
    expect(reopenVerdict('daily')).toBe('never');
    expect(reopenVerdict('compression')).toBe('never');
    expect(reopenVerdict('branched')).toBe('never');
    expect(reopenVerdict('cli_close')).toBe('explicit_only');
    expect(reopenVerdict('lru_evict')).toBe('allowed');
    expect(reopenVerdict(null)).toBe('allowed');
  });
});
