import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { BackupRecord, BackupStatus } from '@statehouse/contracts';
import type { Db, Dialect } from '../db/database.js';
import { copySqliteStore } from '../db/sqlite-copy.js';
import { BackupRepository } from '../repositories/backup.repository.js';
import { assertAdmin } from '../shared/access.js';
import { type Clock, toIso } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { ConflictError, ValidationError } from '../shared/errors.js';
import type { IdGenerator } from '../shared/ids.js';
import type { Logger } from '../shared/logger.js';
import { toDomainError } from '../shared/store-errors.js';
import type { JobDefinition } from './job.service.js';

export const BACKUP_JOB = 'backup';
const BACKUP_FILE = /^statehouse-\d{8}T\d{6}Z\.(db|dump)$/;

/** How a PostgreSQL store is backed up and restored (the backup command prints it). */
export const PG_BACKUP_RECIPE = [
  'PostgreSQL stores are backed up with the server’s own tools, consistent while replicas keep writing:',
  '  pg_dump --format=custom --file statehouse.dump "$STATEHOUSE_DATABASE_URL"',
  'and restored into a new, empty database before any API process starts on it:',
  '  createdb statehouse_restored',
  '  pg_restore --no-owner --exit-on-error --dbname "postgres://…/statehouse_restored" statehouse.dump',
  'then point STATEHOUSE_DATABASE_URL at it, start the API (migrations bring an older dump up to date; the first',
  'start on a restored database renews the store epoch, so receipt consumers resync) and check',
  'GET /v1/deletion-receipts/verify. For point-in-time recovery use WAL archiving or your provider’s backups.',
  '`npm run backup -- --to PATH --pg-dump` runs that pg_dump for you and records it (GET /v1/ops/backup).',
].join('\n');

export interface BackupSchedule {
  intervalMs: number;
  directory: string;
  /** Scheduled copies kept in the directory (older ones are removed). */
  keep: number;
}

export interface BackupOptions {
  trigger: BackupRecord['trigger'];
  holder: string;
  /** PostgreSQL: run pg_dump (otherwise the recipe is the answer). */
  pgDump?: boolean;
}

/**
 * Online backups: SQLite through the backup API on a worker thread (a consistent snapshot while
 * writers run, checked and counted in the copy), PostgreSQL through pg_dump. Every attempt is
 * recorded in the store, so any replica reports the last one.
 */
export class BackupService {
  private readonly records = new BackupRepository();

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly logger: Logger,
    private readonly sqlitePath: string | null,
    private readonly postgresUrl: string | null,
  ) {}

  async backupTo(path: string, options: BackupOptions): Promise<BackupRecord> {
    const target = resolve(path);
    if (this.dialect === 'postgres' && !options.pgDump) throw new ValidationError(PG_BACKUP_RECIPE);
    if (this.dialect === 'sqlite' && (!this.sqlitePath || this.sqlitePath === ':memory:')) {
      throw new ValidationError('an in-memory store has nothing to back up');
    }
    if (existsSync(target)) throw new ConflictError(`${target} already exists; choose a new path`);
    if (!existsSync(dirname(target))) throw new ValidationError(`the directory ${dirname(target)} does not exist`);
    const id = this.ids.next();
    const startedAt = this.clock.now();
    await this.records.start(this.db, {
      id,
      trigger: options.trigger,
      dialect: this.dialect,
      path: target,
      holder: options.holder,
      started_at: startedAt,
    });
    const partial = `${target}.partial-${id}`;
    try {
      let counts: { sessions: number; messages: number; receipts: number };
      if (this.dialect === 'sqlite') {
        const copy = await copySqliteStore(this.sqlitePath!, partial);
        if (copy.check !== 'ok') throw new Error(`the copy failed its integrity check: ${copy.check}`);
        counts = copy.counts;
      } else {
        counts = await this.records.liveCounts(this.db);
        // The password goes in the environment, never on the command line (where `ps`, the error
        // text of a failed run and so the logs and the status API would show it).
        const dump = pgDumpInvocation(this.postgresUrl!);
        await promisify(execFile)('pg_dump', ['--format=custom', '--file', partial, '--dbname', dump.url], {
          env: { ...process.env, ...dump.env },
        });
      }
      chmodSync(partial, 0o600);
      renameSync(partial, target);
      const bytes = statSync(target).size;
      await this.records.succeed(this.db, id, this.clock.now(), bytes, counts);
      this.logger.info('backup written', { path: target, bytes, ...counts });
    } catch (error) {
      rmSync(partial, { force: true });
      const message = redactConnection(String((error as Error)?.message ?? error), this.postgresUrl);
      await this.records.fail(this.db, id, this.clock.now(), message).catch(() => undefined);
      this.logger.error('backup failed', { path: target, error: message });
      const domain = toDomainError(error);
      // A failure of the tool itself: its words, without any credential, and not the raw error
      // (whose message names the command line).
      if (domain === error && this.dialect === 'postgres') throw new Error(`pg_dump failed: ${message}`);
      throw domain;
    }
    return (await this.records.find(this.db, id))!;
  }

  async status(ctx: OperationContext, schedule: BackupStatus['schedule']): Promise<BackupStatus> {
    assertAdmin(ctx.principal);
    try {
      const recent = await this.records.recent(this.db, 10);
      const lastSucceeded =
        recent.find((record) => record.status === 'succeeded') ?? (await this.records.lastSucceeded(this.db));
      return { last: recent[0] ?? null, lastSucceeded, schedule, recent };
    } catch (error) {
      throw toDomainError(error);
    }
  }

  /** The scheduled backup: one copy per interval across processes, the newest `keep` kept. */
  job(schedule: BackupSchedule): JobDefinition {
    return {
      name: BACKUP_JOB,
      intervalMs: schedule.intervalMs,
      // A large copy takes long; the scheduler renews the lease while it runs.
      run: async (context) => {
        mkdirSync(schedule.directory, { recursive: true, mode: 0o700 });
        const stamp = toIso(context.interval.start)
          .replace(/[-:]/g, '')
          .replace(/\.\d+Z$/, 'Z');
        const extension = this.dialect === 'sqlite' ? 'db' : 'dump';
        const record = await this.backupTo(join(schedule.directory, `statehouse-${stamp}.${extension}`), {
          trigger: 'scheduled',
          holder: context.holder,
          pgDump: true,
        });
        const removed = this.prune(schedule);
        return { path: record.path, bytes: record.bytes, removed };
      },
    };
  }

  private prune(schedule: BackupSchedule): string[] {
    const files = readdirSync(schedule.directory)
      .filter((name) => BACKUP_FILE.test(name))
      .sort()
      .reverse();
    const removed = files.slice(Math.max(1, schedule.keep));
    for (const name of removed) rmSync(join(schedule.directory, name), { force: true });
    return removed;
  }
}

/**
 * pg_dump's connection for a store URL: the URL without its password (also a `password=` query
 * parameter), and the password as PGPASSWORD for libpq to read from the environment.
 */
export function pgDumpInvocation(databaseUrl: string): { url: string; env: Record<string, string> } {
  const url = new URL(databaseUrl);
  let password = url.password ? decodeURIComponent(url.password) : undefined;
  url.password = '';
  const fromQuery = url.searchParams.get('password');
  if (fromQuery !== null) {
    password ??= fromQuery;
    url.searchParams.delete('password');
  }
  return { url: url.toString(), env: password === undefined ? {} : { PGPASSWORD: password } };
}

/** Text about a failed connection without its password: the URL's, raw and decoded, becomes `***`. */
export function redactConnection(text: string, databaseUrl: string | null): string {
  let redacted = text.replace(/(\/\/[^:/@\s]*):[^@\s]*@/g, '$1:***@');
  if (databaseUrl) {
    try {
      const url = new URL(databaseUrl);
      const secrets = [url.password, decodeURIComponent(url.password), url.searchParams.get('password') ?? ''];
      for (const secret of secrets) if (secret.length > 0) redacted = redacted.split(secret).join('***');
    } catch {
      // Not a URL: the pattern above is all there is to do.
    }
  }
  return redacted;
}
