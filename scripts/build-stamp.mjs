#!/usr/bin/env node
// The build's fingerprint: a hash of every source file of every workspace (what `npm run build`
// reads), written by the build and checked by `npm start`, so a start on an unchanged checkout
// skips the build (seconds, not minutes on 2 cores). Content, not mtimes: a checkout or a copy that
// touches files without changing them still counts as unchanged.
//
//   node scripts/build-stamp.mjs write   after a successful build
//   node scripts/build-stamp.mjs check   exit 0 when the outputs exist and match the sources, 1 otherwise
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = join(root, 'node_modules', '.statehouse-build-stamp.json');
/** Build outputs and caches: never sources. */
const SKIP = new Set([
  'node_modules',
  'dist',
  '.next',
  'coverage',
  'test-results',
  'data',
  '__pycache__',
  'next-env.d.ts',
]);
/** What the start needs to exist besides a matching stamp. */
const OUTPUTS = ['apps/api/dist/main.js', 'apps/web/.next/BUILD_ID'];

function workspaces() {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return manifest.workspaces ?? [];
}

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name) || entry.name.endsWith('.tsbuildinfo')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile()) yield path;
  }
}

export function fingerprint() {
  const hash = createHash('sha256');
  const inputs = ['package.json', 'package-lock.json', 'tsconfig.base.json', 'tsconfig.json']
    .map((name) => join(root, name))
    .filter((path) => existsSync(path));
  for (const workspace of workspaces()) inputs.push(...files(join(root, workspace)));
  for (const path of inputs.sort()) {
    hash.update(relative(root, path));
    hash.update('\0');
    hash.update(readFileSync(path));
    hash.update('\0');
  }
  return hash.digest('hex');
}

export function upToDate() {
  if (!OUTPUTS.every((output) => existsSync(join(root, output)))) return false;
  if (!existsSync(STAMP)) return false;
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8')).fingerprint === fingerprint();
  } catch {
    return false;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const command = process.argv[2];
  if (command === 'write') {
    writeFileSync(STAMP, `${JSON.stringify({ fingerprint: fingerprint(), builtAt: new Date().toISOString() })}\n`);
  } else if (command === 'check') {
    process.exit(upToDate() ? 0 : 1);
  } else {
    console.error('usage: node scripts/build-stamp.mjs write|check');
    process.exit(2);
  }
}
