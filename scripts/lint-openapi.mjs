#!/usr/bin/env node
// `npm run lint:openapi`: Redocly (recommended) and Spectral (spectral:oas) over the committed OpenAPI
// document. Both must report 0 errors and 0 warnings: neither CLI fails on warnings alone, so the
// totals are read from their JSON reports here.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const documentPath = 'apps/api/openapi.json';
// No telemetry or update checks: CI reaches the npm registry only.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
const bin = (name) => join(root, 'node_modules', '.bin', name);

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  return result;
}

let failed = false;

const redocly = run(bin('redocly'), ['lint', documentPath, '--format=json', '--config=redocly.yaml']);
let redoclyReport;
try {
  redoclyReport = JSON.parse(redocly.stdout);
} catch {
  console.error(redocly.stdout, redocly.stderr);
  throw new Error('redocly lint did not answer with a JSON report');
}
const { errors = 0, warnings = 0 } = redoclyReport.totals ?? {};
console.log(`redocly lint (recommended): ${errors} errors, ${warnings} warnings`);
for (const problem of redoclyReport.problems ?? []) {
  const where = problem.location?.[0]?.pointer ?? '';
  console.log(`  ${problem.severity} ${problem.ruleId} ${where}: ${problem.message}`);
}
if (errors + warnings > 0) failed = true;

const spectral = run(bin('spectral'), ['lint', documentPath, '--ruleset=.spectral.yaml', '--format=json', '--quiet']);
let spectralReport;
try {
  spectralReport = JSON.parse(spectral.stdout || '[]');
} catch {
  console.error(spectral.stdout, spectral.stderr);
  throw new Error('spectral lint did not answer with a JSON report');
}
// Spectral severities: 0 error, 1 warning, 2 information, 3 hint.
const count = (severity) => spectralReport.filter((result) => result.severity === severity).length;
console.log(
  `spectral lint (spectral:oas): ${count(0)} errors, ${count(1)} warnings, ${count(2)} infos, ${count(3)} hints`,
);
for (const result of spectralReport) {
  console.log(
    `  ${['error', 'warning', 'info', 'hint'][result.severity]} ${result.code} ${result.path.join('.')}: ${result.message}`,
  );
}
if (spectralReport.length > 0) failed = true;

process.exit(failed ? 1 : 0);
