import { z } from 'zod';
import {
  CursorSchema,
  IdSchema,
  IsoDateSchema,
  ProfileNameSchema,
  pageOf,
  QueryBooleanSchema,
} from './common.schema.js';

/** Importing another store's history (today: a Hermes Agent `state.db`). */
export const IMPORT_KINDS = ['hermes'] as const;
export const ImportKindSchema = z.enum(IMPORT_KINDS);
export type ImportKind = z.infer<typeof ImportKindSchema>;

/** What to do with a session id that exists here with different content. */
export const ON_CONFLICT = ['skip', 'replace'] as const;
export const OnConflictSchema = z.enum(ON_CONFLICT);
export type OnConflict = z.infer<typeof OnConflictSchema>;

/**
 * The report of one import run: exactly the shape the CLI prints as the last line of stdout.
 * Counts are what this run did (a repeated import of the same file creates nothing).
 */
export const ImportReportSchema = z.object({
  sessions: z.object({
    created: z.number().int(),
    updated: z.number().int().describe('imported before; counters, ends, titles or messages moved in the source'),
    skipped: z.number().int().describe('already here and unchanged, or deleted here since the last import'),
    conflicts: z.number().int().describe('the id exists here with different content: left alone (unless replace)'),
  }),
  messages: z.object({
    created: z.number().int(),
    skipped: z.number().int().describe('already imported, or belonging to a conflicting session'),
  }),
  lineage: z
    .object({
      compression: z.number().int(),
      branch: z.number().int(),
      reset: z.number().int(),
      delegate: z.number().int(),
    })
    .describe('typed edges written by this run'),
  routes: z.number().int().describe('gateway routes created or moved'),
  delegations: z
    .object({ created: z.number().int(), skipped: z.number().int() })
    .optional()
    .describe(
      "async delegations from the file's async_delegations (skipped: here already, or not mappable — see warnings)",
    ),
  deliveries: z
    .object({ created: z.number().int(), skipped: z.number().int() })
    .optional()
    .describe(
      "delivery obligations from the file's delivery_obligations (skipped: here already, or not mappable — see warnings)",
    ),
  warnings: z.array(z.string()),
});
export type ImportReport = z.infer<typeof ImportReportSchema>;

export const IMPORT_STATES = ['running', 'succeeded', 'failed', 'interrupted'] as const;
export const ImportStateSchema = z.enum(IMPORT_STATES);
export type ImportState = z.infer<typeof ImportStateSchema>;

export const IMPORT_PHASES = [
  'receiving',
  'reading',
  'planning',
  'sessions',
  'routes',
  'generations',
  'runtime',
  'done',
] as const;
export const ImportPhaseSchema = z.enum(IMPORT_PHASES);
export type ImportPhase = z.infer<typeof ImportPhaseSchema>;

export const ImportProgressSchema = z.object({
  phase: ImportPhaseSchema,
  sessionsTotal: z.number().int(),
  sessionsDone: z.number().int(),
  messagesTotal: z.number().int(),
  messagesDone: z.number().int(),
});
export type ImportProgress = z.infer<typeof ImportProgressSchema>;

export const ImportJobSchema = z.object({
  id: z.string(),
  kind: ImportKindSchema,
  state: ImportStateSchema.describe('`interrupted`: the process running it stopped; importing the file again resumes'),
  dryRun: z.boolean(),
  profile: z.string().nullable().describe('profile for sessions the file does not assign one'),
  onConflict: OnConflictSchema,
  fileName: z.string().nullable(),
  fileBytes: z.number().int(),
  progress: ImportProgressSchema,
  report: ImportReportSchema.describe('counts so far while running; the final report once finished'),
  conversations: z
    .array(z.object({ id: z.string(), title: z.string().nullable() }))
    .describe('some of the conversations this import created or updated (at most 50), for links'),
  error: z.string().nullable(),
  createdAt: IsoDateSchema,
  startedAt: IsoDateSchema.nullable(),
  finishedAt: IsoDateSchema.nullable(),
  updatedAt: IsoDateSchema,
});
export type ImportJob = z.infer<typeof ImportJobSchema>;

export const ImportJobPageSchema = pageOf(ImportJobSchema);

/** `error` event of an import's event stream: watching failed (the import itself may go on); the stream ends. */
export const ImportStreamErrorSchema = z.object({ detail: z.string() });
export type ImportJobPage = z.infer<typeof ImportJobPageSchema>;

export const ImportStartedSchema = z.object({ id: z.string() });
export type ImportStarted = z.infer<typeof ImportStartedSchema>;

/** The body of POST /v1/imports is the file itself; options travel in the query string. */
export const StartImportQuerySchema = z.object({
  kind: ImportKindSchema.default('hermes'),
  profile: ProfileNameSchema.optional().describe('profile for sessions without profile_name or origin.profile'),
  onConflict: OnConflictSchema.default('skip'),
  dryRun: QueryBooleanSchema.default(false).describe('report what would happen; write nothing'),
  fileName: z.string().max(255).optional().describe('the original file name, for the record'),
});
export type StartImportQuery = z.infer<typeof StartImportQuerySchema>;

export const ListImportsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: CursorSchema.optional(),
});
export type ListImportsQuery = z.infer<typeof ListImportsQuerySchema>;

export const ImportIdParamSchema = IdSchema;

/** Default upper bound of an uploaded file (STATEHOUSE_IMPORT_MAX_BYTES). */
export const IMPORT_MAX_BYTES_DEFAULT = 4 * 1024 ** 3;
