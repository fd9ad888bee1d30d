import { DomainError } from '../shared/errors.js';

/**
 * The file given to an import cannot be imported (not SQLite, corrupt, not the expected store):
 * a clear message for the person who chose it — never a crash, never a partial import.
 */
export class ImportInputError extends DomainError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super('validation_failed', detail, {}, options);
  }

  /** SQLite's own words for a file it cannot read, turned into what the user should know. */
  static fromSqlite(error: unknown): ImportInputError {
    const e = error as { code?: unknown; message?: string };
    const code = String(e?.code ?? '');
    if (code === 'SQLITE_NOTADB') return new ImportInputError('not a SQLite database', { cause: error });
    if (code.startsWith('SQLITE_CORRUPT')) {
      return new ImportInputError(`the file is corrupt or truncated (${e.message ?? code})`, { cause: error });
    }
    return new ImportInputError(`cannot read the file: ${e?.message ?? String(error)}`, { cause: error });
  }
}

/** Another import holds the store's import lease. */
export const IMPORT_JOB = 'import';

/**
 * The run lost the store's import lease (this process stalled past it and another run took it
 * over): it stops before writing another chunk. The run is `interrupted`; importing the same file
 * again resumes it.
 */
export class ImportLeaseLostError extends DomainError {
  constructor() {
    super(
      'conflict',
      'another import took over the import lease; this run stopped (import the same file again to resume)',
    );
  }
}
