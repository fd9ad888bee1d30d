import type { RewindRequest, RewindResponse } from '@statehouse/contracts';
import { type BetweenChunks, CHUNK_STOP_MS, ChunkSizer, reportChunk, STEP_BUDGET_MS, timeBoxed } from '../db/chunks.js';
import type { Db, MessageRow, SessionRow } from '../db/database.js';
import type { SqlDialect } from '../db/sql-dialect.js';
import type { Tx, UnitOfWork } from '../db/unit-of-work.js';
import { previewOf } from '../domain/message-content.js';
import { assertDestructiveAllowed, requireDestructivePreconditions } from '../domain/session-guards.js';
import { DeferredWorkRepository } from '../repositories/deferred-work.repository.js';
import { MessageRepository } from '../repositories/message.repository.js';
import { SessionRepository, toSession } from '../repositories/session.repository.js';
import { canAccessProfile } from '../shared/access.js';
import type { Clock } from '../shared/clock.js';
import type { OperationContext, Preconditions } from '../shared/context.js';
import {
  DomainError,
  IdempotencyRaceError,
  NotFoundError,
  RevisionConflictError,
  SessionClosedError,
  StaleGenerationError,
} from '../shared/errors.js';
import { toDomainError } from '../shared/store-errors.js';
import type { DeferredWorkService } from './deferred-work.service.js';
import { toolCallCount } from './message.service.js';

/**
 * Soft rewinds of a session's transcript (docs/domain.md): in one transaction, or — a huge one — in
 * time-boxed chunks recorded as deferred work, so that an interrupted rewind is resumed by its
 * retry or finished by the deferred-work job.
 */
export class MessageRewindService {
  private readonly messages = new MessageRepository();
  private readonly sessions: SessionRepository;
  private readonly work = new DeferredWorkRepository();
  private deferred: DeferredWorkService | undefined;
  private rewindTuning: RewindTuning = {
    inChunksAbove: REWIND_IN_CHUNKS_ABOVE,
    between: () => new Promise<void>((resolve) => setImmediate(resolve)),
    maxStep: 25_000,
    stopMs: CHUNK_STOP_MS,
    progressChars: REWIND_PROGRESS_CHARS,
  };

  constructor(
    private readonly db: Db,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    dialect: SqlDialect,
    /** Where bulk reads (a resumed rewind's earlier ids) run: the read pool on SQLite. */
    private readonly reads: Db = db,
  ) {
    this.sessions = new SessionRepository(dialect);
  }

  /**
   * Where an interrupted chunked rewind is recorded (the deferred-work job finishes one its caller
   * abandoned) and the pause between chunks. Without it every rewind is one transaction.
   */
  useDeferredWork(deferred: DeferredWorkService, between?: BetweenChunks): void {
    this.deferred = deferred;
    if (between) this.rewindTuning = { ...this.rewindTuning, between };
    deferred.handle(REWIND_WORK, (subject, between) => this.continueAbandonedRewind(subject, between));
  }

  /** Tests: a smaller threshold, smaller chunks, an observed or failing pause. Returns the tuning it replaced. */
  tuneRewind(tuning: Partial<RewindTuning>): RewindTuning {
    const previous = this.rewindTuning;
    this.rewindTuning = { ...this.rewindTuning, ...tuning };
    return previous;
  }

  /**
   * Soft rewind: the message and every later one become inactive (kept, not shown, not searchable);
   * their postings leave search in the same transaction as their rows. A rewind of more than
   * `REWIND_IN_CHUNKS_ABOVE` (200) messages goes in chunks (`rewindInChunks`); the same request retried
   * after one was interrupted resumes it.
   */
  async rewind(
    ctx: OperationContext,
    sessionId: string,
    request: RewindRequest,
    preconditions: Preconditions,
  ): Promise<RewindResponse> {
    requireDestructivePreconditions(preconditions);
    if (this.deferred) {
      // Only chooses the way (bounded reads, outside any transaction); the checks come after.
      const chosen = await this.chooseRewind(sessionId, request, preconditions).catch((error) => {
        throw toDomainError(error);
      });
      if (chosen === 'in-chunks') return this.rewindInChunks(ctx, sessionId, request, preconditions);
      if (chosen) return this.runRewind(ctx, chosen);
    }
    return this.uow.run(ctx, async (tx) => {
      const now = this.clock.now();
      const session = await this.sessions.findByIdForUpdate(tx.db, sessionId);
      if (!session || !canAccessProfile(ctx.principal, session.profile)) throw new NotFoundError('session');
      assertDestructiveAllowed(session, preconditions, now);
      if (session.end_reason === 'compression') throw rewindClosedByCompression();
      const target = await this.messages.findInSession(tx.db, sessionId, request.toMessageId);
      if (!target) throw new NotFoundError('message');
      const rewound = await this.messages.deactivateFrom(tx.db, sessionId, request.toMessageId);
      const visible = rewound.filter((row) => row.display_kind !== 'hidden').length;
      const toolCalls = rewound.reduce((sum, row) => sum + toolCallCount(row.tool_calls), 0);
      const preview = previewOf(await this.messages.firstVisibleUserText(tx.db, sessionId));
      await this.sessions.applyRewind(tx.db, sessionId, { messages: visible, toolCalls }, preview);
      return {
        session: toSession((await this.sessions.findById(tx.db, sessionId))!, now),
        rewoundIds: rewound.map((row) => Number(row.id)),
      };
    });
  }

  /**
   * One transaction (`undefined`), in chunks, or the resumption of an interrupted chunked rewind
   * this very request started (same target, the same tokens it was checked with).
   */
  private async chooseRewind(
    sessionId: string,
    request: RewindRequest,
    preconditions: Preconditions,
  ): Promise<RewindPlan | 'in-chunks' | undefined> {
    for (const record of await this.work.ofKind(this.db, REWIND_WORK, RECORDED_REWINDS_READ)) {
      const plan = rewindPlanOf(record.subject);
      if (
        plan?.sessionId === sessionId &&
        plan.toMessageId === request.toMessageId &&
        plan.revision === preconditions.ifMatch &&
        plan.generation === preconditions.expectedGeneration
      ) {
        return plan;
      }
    }
    const { inChunksAbove } = this.rewindTuning;
    const rewinding = await this.messages.countActiveFrom(this.db, sessionId, request.toMessageId, inChunksAbove + 1);
    return rewinding > inChunksAbove ? 'in-chunks' : undefined;
  }

  /**
   * A huge rewind, from the end backwards: (1) a short transaction checks the request exactly as
   * the one-transaction path does and fixes the range — the target up to the session's last
   * message now, so messages appended meanwhile survive — recording it as deferred work against a
   * crash; (2) `runRewind` deactivates the range from its end in time-boxed chunks, a transaction
   * each, and the target last. Every state in between is the state of a rewind to a later message.
   */
  private async rewindInChunks(
    ctx: OperationContext,
    sessionId: string,
    request: RewindRequest,
    preconditions: Preconditions,
  ): Promise<RewindResponse> {
    // Only the last transaction records the answer (the whole answer, once).
    const plan = await this.uow.run(withoutIdempotency(ctx), async (tx) => {
      const session = await this.sessions.findByIdForUpdate(tx.db, sessionId);
      if (!session || !canAccessProfile(ctx.principal, session.profile)) throw new NotFoundError('session');
      assertDestructiveAllowed(session, preconditions, this.clock.now());
      if (session.end_reason === 'compression') throw rewindClosedByCompression();
      const target = await this.messages.findInSession(tx.db, sessionId, request.toMessageId);
      if (!target) throw new NotFoundError('message');
      const plan: RewindPlan = {
        sessionId,
        toMessageId: request.toMessageId,
        uptoId: await this.messages.lastId(tx.db, sessionId),
        revision: Number(session.revision),
        generation: Number(session.generation),
      };
      // The same request twice at once: the second joins the first's record (its subject may have
      // moved on with the first's chunks already, so its fresh one would be a second record).
      if (!(await this.work.findByIdentity(tx.db, REWIND_WORK, rewindIdentity(plan)))) {
        await this.deferred!.enqueue(tx, REWIND_WORK, rewindSubject(plan, freshProgress(plan)));
      }
      return plan;
    });
    return this.runRewind(ctx, plan);
  }

  /**
   * Deactivates a recorded rewind's range in chunks, then the target with the final bookkeeping
   * (and, for a request, the Idempotency-Key's record). Each chunk shrinks the counters and moves
   * the preview and the revision: every committed chunk is a change of the transcript. Each
   * transaction first checks the session is still there, not closed by compression and at the
   * generation the rewind was checked against: a turn begun meanwhile fences the rest of it off
   * (what is done stays — the state of a rewind to a later message). Resumable: a retry or the
   * deferred-work job carries on from the cursor the committed chunks recorded.
   *
   * The answer lists every message the rewind deactivated, whichever run did it: each chunk also
   * records, in its deferred work's subject, which messages it took (`RewindProgress`), so a run
   * that carries on another's work answers the whole rewind, as an uninterrupted one does.
   */
  private async runRewind(
    ctx: OperationContext | null,
    plan: RewindPlan,
    between: (lastChunkMs: number) => Promise<void> = this.rewindTuning.between,
  ): Promise<RewindResponse> {
    const identity = rewindIdentity(plan);
    const { maxStep, stopMs, progressChars } = this.rewindTuning;
    const sizer = new ChunkSizer(
      Math.min(REWIND_FIRST_STEP, maxStep),
      Math.min(REWIND_MIN_STEP, maxStep),
      maxStep,
      STEP_BUDGET_MS,
    );
    // What this run's committed chunks deactivated: the whole answer unless another run had a part.
    const rewoundIds: number[] = [];
    // The subject this run expects to find: anything else is another run's progress (an earlier,
    // interrupted attempt of the same request, or one running beside this one).
    let expected = rewindSubject(plan, freshProgress(plan));
    let inherited = false;
    // Everything in the range above this is inactive (what the committed chunks have taken): each
    // step starts below it instead of walking the `(session_id, id)` index over every message
    // already taken — walked again per step, that would be quadratic in the range. Recorded with the
    // work, so a resumed run starts there too (and leaves what an import re-activated above it).
    let below = plan.uptoId;
    try {
      for (;;) {
        const started = performance.now();
        const done = await this.uow.run(ctx && withoutIdempotency(ctx), async (tx) => {
          const session = await this.rewindGuard(tx, ctx, plan);
          const record = await this.work.findByIdentity(tx.db, REWIND_WORK, identity);
          if (!record) throw finishedElsewhere(session);
          if (record.subject !== expected) inherited = true;
          let progress = rewindProgressOf(plan, record.subject) ?? freshProgress(plan);
          const removed = { ids: [] as number[], messages: 0, toolCalls: 0 };
          const box = await timeBoxed(
            sizer,
            async (limit) => {
              // Every message of the step, so that what it takes is known among what it passes over
              // (inactive already: an earlier rewind's, an import's) without a second read.
              const rows = await this.messages.lastBetween(
                tx.db,
                plan.sessionId,
                plan.toMessageId,
                progress.cursor,
                limit,
              );
              if (rows.length === 0) return 0;
              const taken = rows.filter((row) => Number(row.active) === 1);
              await this.messages.deactivate(tx.db, taken);
              countRewound(removed, taken);
              progress = advanceProgress(plan, progress, rows, progressChars);
              return rows.length;
            },
            { stopMs },
          );
          // Active from the target to the cursor (what the chunks have not reached yet).
          if (removed.ids.length > 0) await this.applyRewound(tx, plan, removed, plan.toMessageId - 1);
          // The progress, and alive: the deferred-work job leaves a rewind whose chunks keep coming to its runner.
          const subject = rewindSubject(plan, progress);
          await this.work.resubject(tx.db, record, subject, this.clock.now());
          return { box, ids: removed.ids, cursor: progress.cursor, subject };
        });
        const elapsed = performance.now() - started;
        // Committed: only now are they this run's, and the cursor moves.
        rewoundIds.push(...done.ids);
        below = done.cursor;
        expected = done.subject;
        if (done.box.rows > 0) reportChunk({ operation: 'rewind', heldMs: elapsed, ...done.box });
        if (done.box.done) break;
        await between(elapsed);
      }
      // Another run's part: read outside the last transaction (up to the whole range, in pages),
      // which only checks that nobody recorded more meanwhile. (The deferred-work job has nobody to answer.)
      const earlier = inherited && ctx ? await this.recordedRewound(this.reads, plan, identity) : undefined;
      return await this.uow.run(ctx, async (tx) => {
        const now = this.clock.now();
        const session = await this.rewindGuard(tx, ctx, plan);
        const record = await this.work.findByIdentity(tx.db, REWIND_WORK, identity);
        if (!record) throw finishedElsewhere(session);
        let before = earlier;
        if (before && record.subject !== before.subject) {
          // A run beside this one committed chunks after the read (rare): read again, here.
          before = await this.recordedRewound(tx.db, plan, identity);
        }
        const progress = rewindProgressOf(plan, record.subject);
        if (progress) below = progress.cursor;
        // The target. (A message above the cursor that an import made active again meanwhile —
        // following its source's visibility — stays as the import left it, as after a rewind.)
        const removed = { ids: [] as number[], messages: 0, toolCalls: 0 };
        countRewound(
          removed,
          await this.messages.deactivateLast(tx.db, plan.sessionId, plan.toMessageId - 1, below, REWIND_LAST_STEP),
        );
        // Nothing active is left from the target to the range's end (but what an import restored).
        await this.applyRewound(tx, plan, removed, plan.uptoId);
        await this.deferred!.complete(tx, REWIND_WORK, record.subject);
        rewoundIds.push(...removed.ids);
        return {
          session: toSession((await this.sessions.findById(tx.db, plan.sessionId))!, now),
          rewoundIds: before
            ? [...new Set([...before.ids, ...rewoundIds])].sort((a, b) => a - b)
            : rewoundIds.sort((a, b) => a - b),
        };
      });
    } catch (error) {
      // Refused (the session gone, closed, or a turn begun): nothing can finish it any more.
      if (error instanceof DomainError && !(error instanceof IdempotencyRaceError)) {
        await this.uow
          .run(null, async (tx) => {
            const record = await this.work.findByIdentity(tx.db, REWIND_WORK, identity);
            if (record) await this.deferred!.complete(tx, REWIND_WORK, record.subject);
          })
          .catch(() => {
            // The deferred-work job meets the same refusal and drops it.
          });
      }
      throw error;
    }
  }

  /**
   * What the committed chunks of a rewind deactivated, as its deferred work records it (the ids of
   * its runs; past an overflow, every inactive message between the cursor and the runs), with the
   * subject it was read from. Read in pages of `REWIND_IDS_PAGE`.
   */
  private async recordedRewound(
    db: Db,
    plan: RewindPlan,
    identity: string,
  ): Promise<{ subject: string | undefined; ids: number[] }> {
    const record = await this.work.findByIdentity(db, REWIND_WORK, identity);
    const progress = record && rewindProgressOf(plan, record.subject);
    const ids: number[] = [];
    if (!progress) return { subject: record?.subject, ids };
    const read = async (after: number, upto: number, inactive: boolean) => {
      for (;;) {
        const page = await this.messages.idsBetween(db, plan.sessionId, after, upto, REWIND_IDS_PAGE, inactive);
        ids.push(...page);
        if (page.length < REWIND_IDS_PAGE) return;
        after = page[page.length - 1];
      }
    };
    // Between the cursor and the recorded runs (an overflowed record): inactive, whether the rewind
    // or something earlier made them so — an answer may say too much there, never too little.
    if (progress.exactAbove > progress.cursor + 1) await read(progress.cursor, progress.exactAbove - 1, true);
    for (const [first, last] of [...progress.runs].reverse()) await read(first - 1, last, false);
    return { subject: record.subject, ids };
  }

  /** What every transaction of a chunked rewind checks first (the caller's tokens were checked at its start). */
  private async rewindGuard(tx: Tx, ctx: OperationContext | null, plan: RewindPlan): Promise<SessionRow> {
    const session = await this.sessions.findByIdForUpdate(tx.db, plan.sessionId);
    if (!session || (ctx && !canAccessProfile(ctx.principal, session.profile))) throw new NotFoundError('session');
    // The generation moves only when a turn begins: the rewind was fenced at this one. A lease
    // live at this generation is the one the rewind was allowed under.
    if (Number(session.generation) !== plan.generation) throw new StaleGenerationError(Number(session.generation));
    if (session.end_reason === 'compression') throw rewindClosedByCompression();
    return session;
  }

  /**
   * Counters and preview after a chunk. The preview's first visible user message is looked for
   * before the target, then past `activeAbove` (nothing active lies between): a walk from the
   * session's start over the inactive range would cost the final transaction ≈ 45 ms per 10⁵
   * messages.
   */
  private async applyRewound(
    tx: Tx,
    plan: RewindPlan,
    removed: { messages: number; toolCalls: number },
    activeAbove: number,
  ) {
    const text =
      (await this.messages.firstVisibleUserText(tx.db, plan.sessionId, { belowId: plan.toMessageId })) ??
      (await this.messages.firstVisibleUserText(tx.db, plan.sessionId, { aboveId: activeAbove }));
    await this.sessions.applyRewind(tx.db, plan.sessionId, removed, previewOf(text));
  }

  /**
   * The deferred work of a chunked rewind: one whose runner has not written for a while was
   * abandoned (its process died, its client gave up) and is finished here; a fresh one is still
   * running elsewhere.
   */
  private async continueAbandonedRewind(
    subject: string,
    between: (lastChunkMs: number) => Promise<void>,
  ): Promise<undefined | 'later'> {
    const plan = rewindPlanOf(subject);
    if (!plan) return undefined;
    // Found by its identity: the subject moves with every chunk (its progress).
    const record = await this.work.findByIdentity(this.db, REWIND_WORK, rewindIdentity(plan));
    if (!record) return undefined;
    if (this.clock.now() - record.createdAt < REWIND_ABANDONED_AFTER_MS) return 'later';
    try {
      await this.runRewind(null, plan, between);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
    return undefined;
  }
}

/**
 * Rewinds of more active messages than this go in chunks. On a SQLite file on a loaded 2-core
 * machine one transaction held the write lock 26–36 ms for 200 messages and 22–56 ms for 400
 * (bench/probes/rewind-locks.probe.ts; docs/decisions/0019-hidden-rows-for-huge-sessions.md): 200
 * keeps a one-transaction rewind inside the ~50 ms a transaction may hold it. Gateways rewind a
 * few turns, far below.
 */
export const REWIND_IN_CHUNKS_ABOVE = 200;
/** The deferred work recorded with a chunked rewind (its range and the tokens it was checked with). */
export const REWIND_WORK = 'rewind';
/** A chunked rewind whose runner has not written for this long is finished by the deferred-work job. */
export const REWIND_ABANDONED_AFTER_MS = 60_000;
/** First step of a chunked rewind (later ones are sized from measured time). */
const REWIND_FIRST_STEP = 100;
/** Smaller steps would make the fixed cost of a transaction the bulk of the rewind (PostgreSQL's steps run slower). */
const REWIND_MIN_STEP = 50;
/** The last transaction takes the target (and, should the chunks have left any, what lies below the cursor). */
const REWIND_LAST_STEP = 1000;
/** Chunked rewinds recorded at once are few (each is a huge rewind in flight). */
const RECORDED_REWINDS_READ = 1000;

/** How a rewind is split (tests shrink the threshold and the chunks, and watch or fail the pauses). */
export interface RewindTuning {
  inChunksAbove: number;
  between: BetweenChunks;
  /** Most messages one step deactivates. */
  maxStep: number;
  /** A chunk starts no step once this much of its transaction has passed. */
  stopMs: number;
  /** Longest progress line a chunk records (`REWIND_PROGRESS_CHARS`). */
  progressChars: number;
}

/** A chunked rewind's fixed range and the tokens it was checked with (its deferred work's identity). */
interface RewindPlan {
  sessionId: string;
  toMessageId: number;
  /** The session's last message id when the rewind began: later messages are not in the range. */
  uptoId: number;
  revision: number;
  generation: number;
}

/**
 * What the committed chunks of a chunked rewind did, recorded after its plan in its deferred work's
 * subject (each chunk rewrites it in its own transaction): the cursor, and which of the session's
 * messages above it the chunks deactivated — runs of consecutive messages of the session, newest
 * first, as `[firstId, lastId]`. A message above the cursor in no run was inactive already when the
 * chunks reached it (an earlier rewind's, an import's), and the answer must not list it.
 * The runs are bounded (`REWIND_PROGRESS_CHARS` encoded as base-36 distances: ≈ 300 runs a
 * regeneration apart, ≈ 150 whose ids lie thousands apart; one run when nothing in the range was
 * inactive): once they would not fit, recording stops and `exactAbove` stays where it was — the
 * runs cover `[exactAbove, uptoId]`; between the cursor and `exactAbove` a resumed answer lists
 * every inactive message, too much rather than too little (docs/operations.md).
 */
interface RewindProgress {
  /** Every active message of the range above this is the rewind's (the chunks go downwards). */
  cursor: number;
  /** The runs list every message the chunks deactivated from here to the range's end (`cursor + 1` unless overflowed). */
  exactAbove: number;
  runs: [number, number][];
}

/** Its subject's progress lines are at most this long: the subject is the deferred work's key (PostgreSQL's B-tree entries take ≈ 2.7 kB). */
const REWIND_PROGRESS_CHARS = 1200;
/** A resumed rewind reads the ids of what earlier runs did in pages of this many. */
const REWIND_IDS_PAGE = 1000;
/** Marks the progress line of a subject (a plan's lines are a session id and four numbers). */
const PROGRESS_MARK = '@';

const rewindIdentity = (plan: RewindPlan) =>
  [plan.sessionId, plan.toMessageId, plan.uptoId, plan.revision, plan.generation].join('\n');

const freshProgress = (plan: RewindPlan): RewindProgress => ({
  cursor: plan.uptoId,
  exactAbove: plan.uptoId + 1,
  runs: [],
});

/** `@` and base-36 distances down from the range's end: to the cursor, to `exactAbove`, then per run to its last and first id. */
function encodeProgress(plan: RewindPlan, progress: RewindProgress): string {
  const numbers = [plan.uptoId - progress.cursor, plan.uptoId + 1 - progress.exactAbove];
  let from = plan.uptoId;
  for (const [first, last] of progress.runs) {
    numbers.push(from - last, last - first);
    from = first;
  }
  return PROGRESS_MARK + numbers.map((n) => n.toString(36)).join('.');
}

const rewindSubject = (plan: RewindPlan, progress: RewindProgress) =>
  `${rewindIdentity(plan)}\n${encodeProgress(plan, progress)}`;

function rewindPlanOf(subject: string): RewindPlan | undefined {
  const parts = subject.split('\n');
  // Subjects recorded before progress was recorded have none.
  if (parts[parts.length - 1].startsWith(PROGRESS_MARK)) parts.pop();
  if (parts.length < 5) return undefined;
  const [toMessageId, uptoId, revision, generation] = parts.slice(-4).map(Number);
  if (![toMessageId, uptoId, revision, generation].every(Number.isSafeInteger)) return undefined;
  return { sessionId: parts.slice(0, -4).join('\n'), toMessageId, uptoId, revision, generation };
}

/** The progress a subject records (none: a subject without, or one that does not parse — start afresh). */
function rewindProgressOf(plan: RewindPlan, subject: string): RewindProgress | undefined {
  const line = subject.slice(subject.lastIndexOf('\n') + 1);
  if (!line.startsWith(PROGRESS_MARK)) return undefined;
  const numbers = line
    .slice(PROGRESS_MARK.length)
    .split('.')
    .map((part) => (/^[0-9a-z]+$/.test(part) ? Number.parseInt(part, 36) : Number.NaN));
  if (numbers.length < 2 || numbers.length % 2 !== 0 || !numbers.every(Number.isSafeInteger)) return undefined;
  const runs: [number, number][] = [];
  let from = plan.uptoId;
  for (let i = 2; i < numbers.length; i += 2) {
    const last = from - numbers[i];
    const first = last - numbers[i + 1];
    runs.push([first, last]);
    from = first;
  }
  return { cursor: plan.uptoId - numbers[0], exactAbove: plan.uptoId + 1 - numbers[1], runs };
}

/** Whether the chunks still record their runs (the record has not overflowed). */
const recordsRuns = (progress: RewindProgress) => progress.exactAbove === progress.cursor + 1;

/**
 * The progress after a step went over `rows` (the session's messages just below the cursor, newest
 * first, as they were before it) and took the active ones.
 */
function advanceProgress(
  plan: RewindPlan,
  progress: RewindProgress,
  rows: readonly Pick<MessageRow, 'id' | 'active'>[],
  maxChars: number,
): RewindProgress {
  const cursor = Number(rows[rows.length - 1].id) - 1;
  if (!recordsRuns(progress)) return { ...progress, cursor };
  const runs = progress.runs.map(([first, last]): [number, number] => [first, last]);
  // The last recorded run reaches down to the old cursor: the step's newest message, taken, goes on it.
  let open = runs.length > 0 && runs[runs.length - 1][0] === progress.cursor + 1;
  for (const row of rows) {
    const id = Number(row.id);
    if (Number(row.active) !== 1) {
      open = false;
    } else if (open) {
      runs[runs.length - 1][0] = id;
    } else {
      runs.push([id, id]);
      open = true;
    }
  }
  const next = { cursor, exactAbove: cursor + 1, runs };
  if (encodeProgress(plan, next).length <= maxChars) return next;
  // Overflowed: the runs stay exact above the old cursor; below it, from now on, only the cursor moves.
  return { ...progress, cursor };
}

function countRewound(
  into: { ids: number[]; messages: number; toolCalls: number },
  rows: readonly Pick<MessageRow, 'id' | 'display_kind' | 'tool_calls'>[],
): void {
  for (const row of rows) {
    into.ids.push(Number(row.id));
    if (row.display_kind !== 'hidden') into.messages++;
    into.toolCalls += toolCallCount(row.tool_calls);
  }
}

const withoutIdempotency = (ctx: OperationContext): OperationContext => ({ ...ctx, idempotency: undefined });

/**
 * A chunked rewind whose record is gone was finished by another run of the same request (the same
 * request twice at once, or the deferred-work job after this run stalled a minute): as for the
 * second of two identical one-transaction rewinds, this run's tokens are stale. (Its own part
 * would be an incomplete answer.)
 */
const finishedElsewhere = (session: SessionRow) => new RevisionConflictError(Number(session.revision));

const rewindClosedByCompression = () =>
  new SessionClosedError('the session was closed by compression; rewind its continuation');
