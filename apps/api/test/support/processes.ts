import type { ChildProcess } from 'node:child_process';
import {
  assertApiBuilt,
  type Launched,
  mintToken,
  startApi as startBuiltApi,
  stopChildren,
} from '../../../../test/support/process-kit.js';

/**
 * The built API (apps/api/dist) and its token CLI as real OS processes, for the cross-process
 * suites here and the client's: the repository's process kit (test/support/process-kit.ts) with
 * this suite's settings.
 */
export const assertBuilt = assertApiBuilt;
export const stopAll = stopChildren;

/** An admin token made by the CLI against the database, as an operator would. */
export function createAdminToken(databaseUrl: string, name: string): string {
  return mintToken(databaseUrl, { role: 'admin', profiles: '*', name });
}

export interface ApiProcess {
  base: string;
  child: ChildProcess;
  log(): string;
  stop: Launched['stop'];
}

/** Starts the built API on a free port against `databaseUrl`; resolves once it answers. */
export async function startApi(databaseUrl: string, env: Record<string, string> = {}): Promise<ApiProcess> {
  const api = await startBuiltApi({
    databaseUrl,
    // Its own pid only: these suites kill -9 one API and keep the rest.
    detached: false,
    env: { STATEHOUSE_ADMIN_PASSWORD: 'cross-process-admin', STATEHOUSE_RETENTION_INTERVAL_SECONDS: '0', ...env },
  });
  return { base: api.url, child: api.child, log: api.log, stop: api.stop };
}
