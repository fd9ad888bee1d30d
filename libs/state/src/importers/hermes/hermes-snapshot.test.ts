import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HermesFixture, SCENARIO_T0 } from '../../testing/index.js';
import { ownedFile, snapshotFile } from './hermes-snapshot.js';

/**
 * The private copy an import reads (an upload, a snapshot of the source) is removed at its end off
 * the event loop: `rmSync` of a 30 MiB copy held the loop for tens of milliseconds
 * (docs/decisions/0021-import-preparation-off-the-event-loop.md).
 */
const dir = mkdtempSync(join(tmpdir(), 'hermes-snapshot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function source(): string {
  const path = join(dir, 'source.db');
  if (existsSync(path)) return path;
  const f = new HermesFixture(path, 30);
  f.transaction(() => {
    f.session({ id: 's', source: 'cli', started_at: SCENARIO_T0 });
    f.message('s', { role: 'user', content: 'hello', timestamp: SCENARIO_T0 });
  });
  f.close();
  return path;
}

describe('releasing the private copy', () => {
  it('removes an uploaded file’s directory off the event loop', async () => {
    const owned = mkdtempSync(join(dir, 'upload-'));
    copyFileSync(source(), join(owned, 'state.db'));
    const released = ownedFile(join(owned, 'state.db'), owned).release();
    // Nothing removed before the event loop turns: the removal runs on libuv's thread pool.
    expect(existsSync(owned)).toBe(true);
    await released;
    expect(existsSync(owned)).toBe(false);
  });

  it('removes a snapshot’s directory off the event loop', async () => {
    const snapshot = await snapshotFile(source());
    const copyDir = join(snapshot.path, '..');
    expect(existsSync(snapshot.path)).toBe(true);
    const released = snapshot.release();
    expect(existsSync(copyDir)).toBe(true);
    await released;
    expect(existsSync(copyDir)).toBe(false);
    // Idempotent.
    await snapshot.release();
  });
});
