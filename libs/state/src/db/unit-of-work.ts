import {
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RawNode,
  type RootOperationNode,
  sql,
  type Transaction,
  type UnknownRow,
} from 'kysely';
import { principalKey } from '../shared/access.js';
import type { Clock } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { IdempotencyRaceError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { toDomainError } from '../shared/store-errors.js';
import type { DB, Db, Dialect } from './database.js';
import { IdempotencyRepository } from './idempotency.repository.js';
import { bindDirectWrites, markReadOnly } from './prepared.js';
import { isUniqueViolation } from './sql-dialect.js';

export type Effect = () => void | Promise<void>;

/** Lets SELECTs (and raw SELECT/WITH statements) through; any other statement throws before it runs. */
class ReadOnlyPlugin implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    const node = args.node;
    const reads =
      node.kind === 'SelectQueryNode' ||
      (node.kind === 'RawNode' && /^\s*(select|with)\b/i.test((node as RawNode).sqlFragments[0] ?? ''));
    if (!reads) throw new Error(`a read-only unit of work tried to write (${node.kind})`);
    return node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
const READ_ONLY = new ReadOnlyPlugin();
/** One read-only view per store (`readOnly`). */
const readOnlyViews = new WeakMap<object, Transaction<DB>>();

class Rehearsal {
  constructor(readonly value: unknown) {}
}

/** A running transaction plus the effects to run once it commits. */
export interface Tx {
  readonly db: Transaction<DB>;
  afterCommit(effect: Effect): void;
}

/**
 * One domain operation = one transaction. Effects (observer calls, watch wake-ups) run only after
 * commit, never on rollback, never inside the transaction; a failing effect is logged, not thrown.
 */
export class UnitOfWork {
  private readonly idempotency = new IdempotencyRepository();

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Twin requests with one Idempotency-Key run one after the other (SQLite transactions are
   * exclusive; PostgreSQL takes a transaction-scoped advisory lock on the key), and the second
   * sees the first's record here and replays it instead of repeating the effect.
   */
  private async assertUnclaimed(trx: Transaction<DB>, principal: string, key: string): Promise<void> {
    if (this.dialect === 'postgres') {
      await sql`select pg_advisory_xact_lock(hashtextextended(${`${principal}\n${key}`}, 0))`.execute(trx);
    }
    if (await this.idempotency.find(trx, principal, key)) throw new IdempotencyRaceError();
  }

  /**
   * Runs the whole operation — every check, every write — and rolls it back: a dry run that can
   * never disagree with the real one. No idempotency record, no effects.
   */
  async rehearse<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      await this.db.transaction().execute(async (trx) => {
        throw new Rehearsal(await work({ db: trx, afterCommit: () => undefined }));
      });
    } catch (error) {
      if (error instanceof Rehearsal) return error.value as T;
      throw toDomainError(error);
    }
    throw new Error('unreachable: a rehearsal always rolls back');
  }

  /**
   * Runs work that only reads, outside any transaction: no write lock is taken (on SQLite the reads
   * go to the reader connection, which never waits on a writer), so it may take as long as it
   * needs. Each statement sees the store as it stands then (no snapshot across statements). A
   * write the work attempts throws instead of running (`ReadOnlyPlugin`). No effects.
   */
  async readOnly<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    // Typed as a transaction so the same code paths serve both; it never begins one.
    let db = readOnlyViews.get(this.db);
    if (!db) {
      db = this.db.withPlugin(READ_ONLY) as unknown as Transaction<DB>;
      markReadOnly(db);
      readOnlyViews.set(this.db, db);
    }
    try {
      return await work({ db, afterCommit: () => undefined });
    } catch (error) {
      throw toDomainError(error);
    }
  }

  async run<T>(ctx: OperationContext | null, work: (tx: Tx) => Promise<T>): Promise<T> {
    const effects: Effect[] = [];
    const claim = ctx?.idempotency && !ctx.idempotency.recorded ? ctx.idempotency : undefined;
    let result: T;
    try {
      result = await this.db.transaction().execute(async (trx) => {
        // Prepared statements run on the writer in one call (SQLite) until the work is done.
        const unbind = bindDirectWrites(this.db, trx);
        let value: T;
        try {
          if (claim && ctx) await this.assertUnclaimed(trx, principalKey(ctx.principal), claim.key);
          value = await work({ db: trx, afterCommit: (effect) => effects.push(effect) });
        } finally {
          unbind();
        }
        if (claim && ctx) {
          try {
            await this.idempotency.insert(trx, {
              principal_key: principalKey(ctx.principal),
              idempotency_key: claim.key,
              fingerprint: claim.fingerprint,
              status: claim.status,
              body: value === undefined ? null : JSON.stringify(value),
              created_at: this.clock.now(),
            });
          } catch (error) {
            if (isUniqueViolation(error)) throw new IdempotencyRaceError();
            throw error;
          }
        }
        return value;
      });
    } catch (error) {
      throw toDomainError(error);
    }
    if (claim) claim.recorded = true;
    await this.runEffects(ctx, effects);
    return result;
  }

  /**
   * One write committed on its own, at once, when the store can (db/solo-write.ts): `stamp` is the
   * change stamp the caller's decision was read at, `write` runs the one prepared statement (a
   * repository's `…Alone`). `announce` registers what runs after the commit, as in `run`. False:
   * nothing ran — the caller runs its unit of work. Never while an `Idempotency-Key` waits to be
   * recorded: its record belongs in the write's own transaction.
   */
  async writeAlone(
    ctx: OperationContext | null,
    stamp: string | undefined,
    write: (db: Db, stamp: string) => boolean,
    announce: (tx: Pick<Tx, 'afterCommit'>) => void = () => undefined,
  ): Promise<boolean> {
    if (stamp === undefined || (ctx?.idempotency && !ctx.idempotency.recorded)) return false;
    try {
      if (!write(this.db, stamp)) return false;
    } catch (error) {
      throw toDomainError(error);
    }
    const effects: Effect[] = [];
    announce({ afterCommit: (effect) => effects.push(effect) });
    await this.runEffects(ctx, effects);
    return true;
  }

  /** Post-commit effects, in order; one that fails is logged and the rest still run. */
  private async runEffects(ctx: OperationContext | null, effects: readonly Effect[]): Promise<void> {
    for (const effect of effects) {
      try {
        await effect();
      } catch (error) {
        this.logger.error('post-commit effect failed', { error: String(error), requestId: ctx?.requestId });
      }
    }
  }
}
