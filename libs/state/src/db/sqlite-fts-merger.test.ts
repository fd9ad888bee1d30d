import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Logger } from '../shared/logger.js';
import { SqliteFtsMerger } from './sqlite-fts-merger.js';

describe('the search-index merger worker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'statehouse-fts-merger-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says once that it stopped when it cannot open the file (it was silent)', async () => {
    const warnings: { message: string; context?: Record<string, unknown> }[] = [];
    const logger: Logger = { info() {}, error() {}, warn: (message, context) => warnings.push({ message, context }) };
    const path = join(dir, 'missing', 'store.db');
    const merger = new SqliteFtsMerger(path, {}, logger);
    const deadline = Date.now() + 20_000;
    while (warnings.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    // The worker's 'error' is followed by its 'exit': give the second event its chance to be (not) logged.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await merger.close();
    expect(warnings).toHaveLength(1);
    expect(warnings[0].message).toMatch(/search-index merger stopped/);
    expect(warnings[0].context).toMatchObject({ path });
    expect(String(warnings[0].context?.reason)).toMatch(/unable to open|directory does not exist|SQLITE_CANTOPEN/i);
  });
});
