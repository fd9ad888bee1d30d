import { type ParseArgsConfig, parseArgs } from 'node:util';
import { type ApiConfig, loadConfig } from '../config.js';

/**
 * Every command-line tool parses its arguments here, so they behave alike: `--help` (or `-h`)
 * prints the usage on stdout and exits 0; an unknown option or a missing value prints the reason
 * and the usage on stderr and exits 2 — never a stack trace.
 */
export function parseCliArgs<T extends ParseArgsConfig>(
  config: T,
  usage: string,
  tool: string,
): ReturnType<typeof parseArgs<T>> {
  const options = { ...config.options, help: { type: 'boolean', short: 'h' } } as const;
  try {
    const parsed = parseArgs({ ...config, options, strict: true });
    if ((parsed.values as { help?: boolean }).help) {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    }
    return parsed as unknown as ReturnType<typeof parseArgs<T>>;
  } catch (error) {
    process.stderr.write(`statehouse ${tool}: ${(error as Error).message}\n${usage}\n`);
    process.exit(2);
  }
}

/** The configuration by environment; a bad variable prints what is wrong with it and exits 2, never a stack trace. */
export function loadCliConfig(tool: string): ApiConfig {
  try {
    return loadConfig();
  } catch (error) {
    process.stderr.write(`statehouse ${tool}: ${(error as Error).message}\n`);
    process.exit(2);
  }
}
