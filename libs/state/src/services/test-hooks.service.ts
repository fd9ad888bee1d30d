import {
  classifyEndReason,
  type TestMessagePatch,
  type TestPatchResult,
  type TestSessionPatch,
} from '@statehouse/contracts';
import type { SessionPatch } from '../db/database.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import { TestHooksRepository } from '../repositories/test-hooks.repository.js';
import { assertAdmin } from '../shared/access.js';
import type { OperationContext } from '../shared/context.js';
import { NotFoundError } from '../shared/errors.js';
import { textOrNull } from '../shared/json.js';

/**
 * Test hooks (docs/api.md, "Test hooks"): overwrite stored values without any rule, so a suite written
 * against a file-backed store (Hermes' own) can put rows in the past through the API. Admin only; the
 * API exposes them only when started with `STATEHOUSE_TEST_HOOKS=1`.
 */
export class TestHooksService {
  private readonly hooks = new TestHooksRepository();

  constructor(private readonly uow: UnitOfWork) {}

  async patchSession(ctx: OperationContext, id: string, request: TestSessionPatch): Promise<TestPatchResult> {
    assertAdmin(ctx.principal);
    return this.uow.run(ctx, async (tx) => {
      const patch: SessionPatch = {};
      if (request.startedAt !== undefined) patch.started_at = request.startedAt;
      if (request.endedAt !== undefined) patch.ended_at = request.endedAt;
      if (request.endReason !== undefined) {
        const end = request.endReason === null ? null : classifyEndReason(request.endReason);
        patch.end_reason = end?.reason ?? null;
        patch.end_reason_detail = end?.detail ?? null;
      }
      if (request.messageCount !== undefined) patch.message_count = request.messageCount;
      if (request.toolCallCount !== undefined) patch.tool_call_count = request.toolCallCount;
      if (request.inputTokens !== undefined) patch.input_tokens = request.inputTokens;
      if (request.outputTokens !== undefined) patch.output_tokens = request.outputTokens;
      if (request.estimatedCostUsd !== undefined) patch.estimated_cost_usd = request.estimatedCostUsd;
      if (request.actualCostUsd !== undefined) patch.actual_cost_usd = request.actualCostUsd;
      if (request.title !== undefined) patch.title = textOrNull(request.title);
      if (request.parentSessionId !== undefined) patch.parent_session_id = request.parentSessionId;
      if (request.model !== undefined) patch.model = request.model;
      if (request.billingProvider !== undefined) patch.billing_provider = request.billingProvider;
      if (request.userId !== undefined) patch.user_id = request.userId;
      if (request.chatId !== undefined) patch.chat_id = request.chatId;
      if (request.chatType !== undefined) patch.chat_type = request.chatType;
      if (request.gitBranch !== undefined) patch.git_branch = request.gitBranch;
      if (request.sessionKey !== undefined) patch.session_key = request.sessionKey;
      if (request.displayName !== undefined) patch.display_name = request.displayName;
      const updated = await this.hooks.patchSession(tx.db, id, patch, {
        started: request.startedAtOffsetMs,
        ended: request.endedAtOffsetMs,
      });
      if (updated === 0) throw new NotFoundError('session');
      await this.hooks.settleActivity(tx.db, [id]);
      return { updated };
    });
  }

  async patchMessages(ctx: OperationContext, request: TestMessagePatch): Promise<TestPatchResult> {
    assertAdmin(ctx.principal);
    return this.uow.run(ctx, async (tx) => {
      const rows = await this.hooks.matchingMessages(tx.db, request.where);
      const set: { timestamp?: number; active?: 0 | 1 } = {};
      if (request.set.timestamp !== undefined) set.timestamp = request.set.timestamp;
      if (request.set.active !== undefined) set.active = request.set.active ? 1 : 0;
      const updated = await this.hooks.patchMessages(
        tx.db,
        rows.map((row) => row.id),
        set,
      );
      await this.hooks.settleActivity(
        tx.db,
        rows.map((row) => row.session_id),
      );
      return { updated };
    });
  }
}
