// Example Statehouse plugin: keeps one file per session (say, an agent's scratch state or an
// attachment cache), grouped by profile. It removes a session's file when the session is deleted —
// by any deletion path — and moves it when a profile repair moves the session: a move is not a
// deletion of content (docs/domain.md §5.2).
//
//   STATEHOUSE_PLUGINS=examples/session-files-plugin/index.mjs
//   STATEHOUSE_SESSION_FILES_DIR=./data/session-files   (default)
//
// Observers run after the operation committed, once per operation, and are fail-open: an error here
// is logged by Statehouse and never affects the delete or the move. Files of archived sessions are kept.
// They are not a durable feed: a call is lost if the process dies between the commit and the call,
// and deletions made by another API process are heard there, not here. A plugin that must not miss
// one replays the deletion receipts (`/v1/deletion-receipts`) instead.
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

export function sessionFilesDir(env = process.env) {
  return resolve(env.STATEHOUSE_SESSION_FILES_DIR || 'data/session-files');
}

/** Where the file of one session lives (names are URL-encoded, so any id is a safe file name). */
export function sessionFilePath(dir, profile, sessionId) {
  return join(dir, encodeURIComponent(profile), `${encodeURIComponent(sessionId)}.json`);
}

/** What the host application calls to keep something for a session. */
export async function writeSessionFile(dir, profile, sessionId, data) {
  const path = sessionFilePath(dir, profile, sessionId);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(data), { mode: 0o600 });
}

async function moveFile(from, to) {
  await mkdir(dirname(to), { recursive: true });
  try {
    await rename(from, to);
    return true;
  } catch (error) {
    if (error.code === 'ENOENT') return false; // nothing was kept for this session
    throw error;
  }
}

export async function register({ onSessionDeleted, onSessionMoved, logger }) {
  const dir = sessionFilesDir();
  await mkdir(dir, { recursive: true });
  onSessionDeleted(async (event) => {
    if (event.reason === 'archive') return;
    // A profile repair is heard here too (the sessions left `event.profile`); this plugin moves the
    // file on the move event instead. A deletion-only plugin would release what it keeps for them.
    if (event.reason === 'profile_repair') return;
    // One call per operation, which may span profiles: `byProfile` says which profile each id left.
    const files = Object.entries(event.byProfile).flatMap(([profile, ids]) =>
      ids.map((id) => sessionFilePath(dir, profile, id)),
    );
    await Promise.all(files.map((file) => rm(file, { force: true })));
    logger.info('session files removed', {
      operationId: event.operationId,
      reason: event.reason,
      origin: event.origin,
      count: event.deletedIds.length,
    });
  });
  onSessionMoved(async (event) => {
    const moved = await Promise.all(
      event.movedIds.map((id) =>
        moveFile(sessionFilePath(dir, event.fromProfile, id), sessionFilePath(dir, event.toProfile, id)),
      ),
    );
    logger.info('session files moved', {
      operationId: event.operationId,
      from: event.fromProfile,
      to: event.toProfile,
      count: moved.filter(Boolean).length,
    });
  });
}
