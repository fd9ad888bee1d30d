#!/usr/bin/env node
// `npm start`: the API and the dashboard together (after `npm run build`), one Ctrl-C stops both.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
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

// A larger young generation: fewer scavenges per request (docs/architecture.md, "The request path").
run('api', ['--max-semi-space-size=32', join(root, 'apps/api/dist/main.js')], root);
run(
  'dashboard',
  [join(root, 'node_modules/next/dist/bin/next'), 'start', '-p', webPort, '-H', host],
  join(root, 'apps/web'),
);
console.log(`[statehouse] API http://${host}:${apiPort} (docs /docs) · dashboard http://${host}:${webPort}`);
