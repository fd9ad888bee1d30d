// Example Statehouse plugin: keeps one file per session (say, an agent's scratch state or an
// attachment cache) and removes it when the session is deleted — by any deletion path.
//
//   STATEHOUSE_PLUGINS=examples/session-files-plugin/index.mjs
//   STATEHOUSE_SESSION_FILES_DIR=./data/session-files   (default)
//
// Observers run after the delete committed, once per operation, and are fail-open: an error here
// is logged by Statehouse and never affects the delete. Files of archived sessions are kept.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export function sessionFilesDir(env = process.env) {
  return resolve(env.STATEHOUSE_SESSION_FILES_DIR || 'data/session-files');
}

/** Where the file of one session lives (ids are URL-encoded, so any id is a safe file name). */
export function sessionFilePath(dir, sessionId) {
  return join(dir, `${encodeURIComponent(sessionId)}.json`);
}

/** What the host application calls to keep something for a session. */
export async function writeSessionFile(dir, sessionId, data) {
  await mkdir(dir, { recursive: true });
  await writeFile(sessionFilePath(dir, sessionId), JSON.stringify(data), { mode: 0o600 });
}

export async function register({ onSessionDeleted, logger }) {
  const dir = sessionFilesDir();
  await mkdir(dir, { recursive: true });
  onSessionDeleted(async (event) => {
    if (event.reason === 'archive') return;
    await Promise.all(event.deletedIds.map((id) => rm(sessionFilePath(dir, id), { force: true })));
    logger.info('session files removed', {
      operationId: event.operationId,
      reason: event.reason,
      origin: event.origin,
      count: event.deletedIds.length,
    });
  });
}
