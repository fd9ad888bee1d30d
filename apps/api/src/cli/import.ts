import { type ImportProgress, OnConflictSchema, ProfileNameSchema } from '@statehouse/contracts';
import { assertSqliteHeader, DomainError, openStore, SYSTEM_PRINCIPAL, silentLogger } from '@statehouse/state';
import { loadCliConfig, parseCliArgs } from './args.js';

/**
 * `npm run import -- hermes --db PATH [--profile NAME] [--dry-run] [--on-conflict=skip|replace]`:
 * imports a Hermes Agent state.db into the configured store. Progress goes to stderr (a bar on a
 * terminal, plain lines otherwise); the last line of stdout is the JSON report.
 */
const usage = 'usage: npm run import -- hermes --db PATH [--profile NAME] [--dry-run] [--on-conflict=skip|replace]';

function fail(message: string, code: number): never {
  process.stderr.write(`statehouse import: ${message}\n`);
  process.exit(code);
}

const { positionals, values } = parseCliArgs(
  {
    allowPositionals: true,
    options: {
      db: { type: 'string' },
      profile: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'on-conflict': { type: 'string' },
    },
  },
  usage,
  'import',
);
if (positionals[0] !== 'hermes' || positionals.length !== 1 || !values.db) fail(usage, 2);
const onConflict = OnConflictSchema.safeParse(values['on-conflict'] ?? 'skip');
if (!onConflict.success) fail(`--on-conflict must be skip or replace\n${usage}`, 2);
const profile = values.profile === undefined ? undefined : ProfileNameSchema.safeParse(values.profile);
if (profile && !profile.success) fail(`--profile must match [a-z0-9][a-z0-9_-]{0,63}\n${usage}`, 2);

/** A bar redrawn in place on a terminal; a plain line per phase and every few seconds otherwise. */
function progressReporter() {
  const tty = process.stderr.isTTY === true;
  let lastDraw = 0;
  let lastPhase = '';
  return {
    update(p: ImportProgress, done = false) {
      const now = Date.now();
      const phaseChanged = p.phase !== lastPhase;
      if (done && !tty && !phaseChanged) return;
      if (!done && !phaseChanged && now - lastDraw < (tty ? 100 : 2000)) return;
      lastDraw = now;
      lastPhase = p.phase;
      const fraction = p.messagesTotal > 0 ? p.messagesDone / p.messagesTotal : p.phase === 'done' ? 1 : 0;
      const counts = `${p.messagesDone.toLocaleString('en-US')}/${p.messagesTotal.toLocaleString('en-US')} messages, ${p.sessionsDone.toLocaleString('en-US')}/${p.sessionsTotal.toLocaleString('en-US')} sessions`;
      if (tty) {
        const width = 28;
        const filled = Math.round(fraction * width);
        const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
        process.stderr.write(`\r\u001b[2K${bar} ${(fraction * 100).toFixed(0).padStart(3)}% ${p.phase} · ${counts}`);
        if (done) process.stderr.write('\n');
      } else {
        process.stderr.write(`import: ${p.phase} ${(fraction * 100).toFixed(0)}% (${counts})\n`);
      }
    },
  };
}

// A file that is not SQLite at all is refused before the store is even opened.
try {
  assertSqliteHeader(values.db!);
} catch (error) {
  fail((error as Error).message, 2);
}

const config = loadCliConfig('import');
let store: Awaited<ReturnType<typeof openStore>>;
try {
  store = await openStore({
    url: config.databaseUrl,
    logger: silentLogger,
    preparedStatements: config.pgPreparedStatements,
  });
} catch (error) {
  fail((error as Error).message, 1);
}
const progress = progressReporter();
let last: ImportProgress | undefined;
let exitCode = 0;
try {
  const result = await store.imports.runHermes(
    { principal: SYSTEM_PRINCIPAL, channel: 'system' },
    {
      path: values.db!,
      profile: profile?.data,
      onConflict: onConflict.data,
      dryRun: values['dry-run'] === true,
      batchTargetMs: config.importBatchMs,
      onProgress: (p) => {
        last = p;
        progress.update(p);
      },
    },
  );
  progress.update(result.progress, true);
  const { sessions, messages } = result.report;
  process.stderr.write(
    `${values['dry-run'] ? 'dry run (nothing written): ' : ''}sessions ${sessions.created} created, ${sessions.updated} updated, ` +
      `${sessions.skipped} skipped, ${sessions.conflicts} conflicts; messages ${messages.created} created, ` +
      `${messages.skipped} skipped; ${result.report.warnings.length} warning(s)\n`,
  );
  process.stdout.write(`${JSON.stringify(result.report)}\n`);
} catch (error) {
  if (last) progress.update(last, true);
  exitCode = error instanceof DomainError && error.code === 'validation_failed' ? 2 : 1;
  process.stderr.write(
    `statehouse import: ${error instanceof DomainError ? error.message : ((error as Error).stack ?? String(error))}\n`,
  );
} finally {
  await store.close();
}
process.exit(exitCode);
