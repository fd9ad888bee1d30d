#!/usr/bin/env node
// `npm start`: builds when the sources changed since the last build (or always, with
// STATEHOUSE_REBUILD=1), then runs the API and the dashboard together; one Ctrl-C stops both.
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { upToDate } from './build-stamp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

if (process.env.STATEHOUSE_REBUILD === '1' || !upToDate()) {
  console.log('[statehouse] building (the sources changed since the last build, or there is none)');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const build = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
} else {
  console.log('[statehouse] the build is up to date with the sources: starting it');
}
const apiPort = process.env.STATEHOUSE_API_PORT || '3000';
const webPort = process.env.STATEHOUSE_WEB_PORT || '3001';
const host = process.env.STATEHOUSE_HOST || '127.0.0.1';
const env = {
  ...process.env,
  STATEHOUSE_API_URL: process.env.STATEHOUSE_API_URL || `http://127.0.0.1:${apiPort}`,
  NEXT_TELEMETRY_DISABLED: '1',
};

const children = [];
function run(name, args, cwd) {
  const child = spawn(process.execPath, args, { cwd, env, stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`[statehouse] ${name} exited (${signal ?? code}); stopping`);
      stop(code ?? 1);
    }
  });
  children.push(child);
  return child;
}

let stopping = false;
function stop(code = 0) {
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 1500).unref();
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

// A larger young generation: fewer scavenges per request (docs/decisions/0015-larger-young-generation.md).
run('api', ['--max-semi-space-size=32', join(root, 'apps/api/dist/main.js')], root);
run(
  'dashboard',
  [join(root, 'node_modules/next/dist/bin/next'), 'start', '-p', webPort, '-H', host],
  join(root, 'apps/web'),
);
console.log(`[statehouse] API http://${host}:${apiPort} (docs /docs) · dashboard http://${host}:${webPort}`);
