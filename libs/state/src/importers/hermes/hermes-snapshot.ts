import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ImportInputError } from '../../domain/import-errors.js';

/** A private, readable copy of the source: the source itself is never opened by SQLite. */
export interface Snapshot {
  /** The database file to open (inside a private directory). */
  path: string;
  /**
   * Removes the private copy (idempotent), off the event loop (libuv's thread pool): unlinking a
   * 30 MiB copy held the loop for tens of milliseconds (docs/decisions/0021-import-preparation-off-the-event-loop.md).
   */
  release(): Promise<void>;
}

const removeDir = (dir: string) => rm(dir, { recursive: true, force: true });

const SQLITE_HEADER = 'SQLite format 3\u0000';
const COPY_ATTEMPTS = 5;

/** Checks the first 16 bytes: a file that is not SQLite gets a clear answer before anything else. */
export function assertSqliteHeader(path: string): void {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch (error) {
    throw new ImportInputError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`, {
      cause: error,
    });
  }
  if (!stat.isFile()) throw new ImportInputError(`${path} is not a regular file`);
  if (stat.size === 0) throw new ImportInputError('the file is empty');
  const header = Buffer.alloc(16);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString('latin1') !== SQLITE_HEADER) throw new ImportInputError('not a SQLite database');
}

interface FileState {
  size: number;
  mtimeMs: number;
  ino: number;
}

function stateOf(path: string): FileState | null {
  try {
    const stat = statSync(path);
    return { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino };
  } catch {
    return null;
  }
}

const sameState = (a: FileState | null, b: FileState | null) =>
  a === b || (a !== null && b !== null && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino);

/**
 * Copies the file and its `-wal` (committed transactions may live only there) into a private
 * temp directory, byte for byte, and opens nothing beside the source: no `-wal`/`-shm` is ever
 * created next to it, whatever its journal mode. When a writer changes the files during the copy
 * the copy is taken again, so the pair is consistent (import a copy of a live store to be sure).
 * The bytes are copied off the event loop (libuv's thread pool): a synchronous copy of a 30 MiB
 * file held it 60–140 ms, and it grows with the file.
 */
export async function snapshotFile(sourcePath: string): Promise<Snapshot> {
  assertSqliteHeader(sourcePath);
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-import-'));
  const target = join(dir, basename(sourcePath) || 'state.db');
  const release = () => removeDir(dir);
  try {
    for (let attempt = 1; ; attempt++) {
      const before = [stateOf(sourcePath), stateOf(`${sourcePath}-wal`)];
      await copyFile(sourcePath, target);
      rmSync(`${target}-wal`, { force: true });
      if (before[1] !== null) await copyFile(`${sourcePath}-wal`, `${target}-wal`);
      const after = [stateOf(sourcePath), stateOf(`${sourcePath}-wal`)];
      if (sameState(before[0], after[0]) && sameState(before[1], after[1])) break;
      if (attempt >= COPY_ATTEMPTS) {
        throw new ImportInputError(
          'the file kept changing while it was copied (a running Hermes is writing to it): import a copy instead',
        );
      }
    }
  } catch (error) {
    await release();
    throw error;
  }
  return { path: target, release };
}

/** A file this process already owns (an upload in its own temp directory): used in place. */
export function ownedFile(path: string, dir: string): Snapshot {
  assertSqliteHeader(path);
  return { path, release: () => removeDir(dir) };
}
