import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Dialect } from '../db/database.js';
import type { StoreOptions } from '../store.js';
import { openTestStore, type TestStore } from './index.js';

/**
 * Suite-scoped set-ups (they register vitest hooks, so only tests import this module; bench and
 * other users of testing/index.ts never load vitest through it).
 */

/**
 * A fresh test store of `dialect` for one `describe`: opened before its first test, closed after
 * its last. The answer stands for the opened store (use it inside the suite's tests and hooks); a
 * `beforeAll` declared after this call sees it open.
 */
export function useTestStore(dialect: Dialect, options: Omit<StoreOptions, 'url'> = {}): TestStore {
  let opened: TestStore | undefined;
  beforeAll(async () => {
    opened = await openTestStore(dialect, options);
  });
  afterAll(async () => opened?.close());
  return new Proxy({} as TestStore, {
    get(_target, property) {
      if (!opened) throw new Error('the test store opens in beforeAll: use it inside a test or a hook');
      return Reflect.get(opened, property);
    },
  });
}

/** Stores and files a suite makes as it goes; every one is closed or removed after the suite. */
export interface Scratch {
  /** A fresh store of the suite's dialect (`options` over the suite's). */
  open(options?: Omit<StoreOptions, 'url'>): Promise<TestStore>;
  /** `name` in a new temporary folder whose name starts with `prefix`. */
  path(prefix: string, name?: string): string;
}

export function useScratch(dialect: Dialect, options: Omit<StoreOptions, 'url'> = {}): Scratch {
  const stores: TestStore[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const t of stores.splice(0)) await t.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }, 60_000);
  return {
    async open(more = {}) {
      const t = await openTestStore(dialect, { ...options, ...more });
      stores.push(t);
      return t;
    },
    path(prefix, name = 'state.db') {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return join(dir, name);
    },
  };
}
