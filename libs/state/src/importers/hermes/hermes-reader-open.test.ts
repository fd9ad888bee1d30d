import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BACKGROUND_THREAD_NICE } from '../../shared/background-thread.js';
import { HermesFixture, SCENARIO_T0 } from '../../testing/index.js';
import { HermesReader } from './hermes-reader.js';

/**
 * Opening a Hermes file runs SQLite's integrity check over every page of it (≈ 1.3 s for 10⁵
 * messages): in a worker thread, so the event loop keeps turning meanwhile, with the same answer.
 */
const dir = mkdtempSync(join(tmpdir(), 'hermes-open-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function build(name: string, options: { wal?: boolean; perSession?: number } = {}): string {
  const path = join(dir, name);
  const f = new HermesFixture(path, 30, { wal: options.wal ?? false });
  f.transaction(() => {
    for (let s = 0; s < 30; s++) {
      f.session({ id: `s${s}`, source: 'cli', started_at: SCENARIO_T0 + s });
      for (let m = 0; m < (options.perSession ?? 40); m++) {
        f.message(`s${s}`, { role: 'user', content: `${'x'.repeat(200)} ${s}/${m}`, timestamp: SCENARIO_T0 + s });
      }
    }
  });
  f.close();
  return path;
}

async function openCountingTurns(path: string): Promise<{ reader: HermesReader; turns: number }> {
  let turns = 0;
  let counting = true;
  const tick = () => {
    turns++;
    if (counting) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    return { reader: await HermesReader.open(path), turns };
  } finally {
    counting = false;
  }
}

describe('opening a Hermes file', () => {
  // It works on the import's private copy, holding no lock of the store: on 2 shared cores the
  // event loops answering requests come first.
  it.runIf(process.platform === 'linux')('prepares the file on a thread at the background priority', async () => {
    // The thread reports its own nice value: sampling /proc from the event loop (before) missed a
    // short preparation on a loaded CI machine.
    const reader = await HermesReader.open(build('nice.db', { perSession: 400 }));
    try {
      expect(reader.messageCounts().get('s3')).toBe(400);
      expect(reader.preparedOn).toMatchObject({ thread: 'worker' });
      // At least the background value: a process already niced lower keeps its own.
      const nice = reader.preparedOn.thread === 'worker' ? reader.preparedOn.nice : null;
      expect(nice).toBeGreaterThanOrEqual(BACKGROUND_THREAD_NICE);
    } finally {
      reader.close();
    }
  });

  it('checks its integrity off the event loop', async () => {
    const { reader, turns } = await openCountingTurns(build('sound.db'));
    try {
      expect(reader.schema.notes.some((note) => /integrity/.test(note))).toBe(false);
      // The check in-process (before) let no turn pass.
      expect(turns).toBeGreaterThan(0);
    } finally {
      reader.close();
    }
  });

  it('still reports a damaged file', async () => {
    const path = build('damaged.db');
    // Torn pages near the end of the file (messages): the schema still reads, the check fails.
    const bytes = readFileSync(path);
    const pageSize = bytes.readUInt16BE(16);
    const pages = Math.floor(statSync(path).size / pageSize);
    for (let page = pages - 6; page < pages - 2; page++) {
      for (let i = 0; i < 12; i++) bytes[page * pageSize + i] = 0xa5 ^ i;
    }
    writeFileSync(path, bytes);
    const { reader } = await openCountingTurns(path);
    try {
      expect(reader.schema.notes[0]).toMatch(
        /^Part of this file is damaged \(SQLite's integrity check: .+\)\. Every conversation that can be read whole is imported/,
      );
    } finally {
      reader.close();
    }
  });

  // The largest slice of an import over HTTP was planning's count of every session's messages,
  // one statement over the whole file on the event loop
  // (docs/decisions/0021-import-preparation-off-the-event-loop.md).
  it('counts each session’s messages off the event loop', async () => {
    const { reader } = await openCountingTurns(build('counted.db'));
    const prepare = vi.spyOn(Database.prototype, 'prepare');
    try {
      const counts = reader.messageCounts();
      expect(counts.size).toBe(30);
      expect([...counts.values()].every((n) => n === 40)).toBe(true);
      expect(counts.get('s7')).toBe(40);
      // Nothing asked of the reader's connection: the worker counted them.
      expect(prepare).not.toHaveBeenCalled();
    } finally {
      prepare.mockRestore();
      reader.close();
    }
  });

  // The index the worker writes into a WAL file's log was copied back (and fsynced) by the reader's
  // close on the event loop, the last connection: 93 ms of one slice in the health bench.
  it('leaves nothing in the WAL for close to copy back', async () => {
    const path = build('wal.db', { wal: true });
    const { reader } = await openCountingTurns(path);
    try {
      expect(reader.messageCounts().size).toBe(30);
      expect(statSync(`${path}-wal`).size).toBe(0);
    } finally {
      reader.close();
    }
  });
});
