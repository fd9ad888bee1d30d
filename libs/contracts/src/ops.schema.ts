import { z } from 'zod';
import { IsoDateSchema } from './common.schema.js';

/** One (job, interval) of the scheduler: the lease while it runs, the record once done. */
export const JobRunSchema = z.object({
  job: z.string(),
  intervalStart: IsoDateSchema,
  intervalEnd: IsoDateSchema,
  status: z.enum(['running', 'done', 'failed']),
  /** The process that holds (or last held) the interval: host:pid:random. */
  holder: z.string(),
  /** Passes started for this interval (more than 1 after a crash or a failure). */
  attempts: z.number().int(),
  startedAt: IsoDateSchema,
  finishedAt: IsoDateSchema.nullable(),
  leaseExpiresAt: IsoDateSchema,
  summary: z.record(z.string(), z.unknown()).nullable(),
  error: z.string().nullable(),
});
export type JobRun = z.infer<typeof JobRunSchema>;

export const JobRunListSchema = z.object({ items: z.array(JobRunSchema) });
export type JobRunList = z.infer<typeof JobRunListSchema>;

export const JobRunQuerySchema = z.object({
  job: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
export type JobRunQuery = z.infer<typeof JobRunQuerySchema>;

export const BackupCountsSchema = z.object({
  sessions: z.number().int(),
  messages: z.number().int(),
  receipts: z.number().int(),
});

export const BackupRecordSchema = z.object({
  id: z.string(),
  trigger: z.enum(['cli', 'scheduled']),
  status: z.enum(['running', 'succeeded', 'failed']),
  dialect: z.enum(['sqlite', 'postgres']),
  /** Where the copy was written, on the host of the process that made it. */
  path: z.string(),
  holder: z.string(),
  startedAt: IsoDateSchema,
  finishedAt: IsoDateSchema.nullable(),
  bytes: z.number().int().nullable(),
  /** What the copy holds, counted in the copy itself after it was written. */
  counts: BackupCountsSchema.nullable(),
  error: z.string().nullable(),
});
export type BackupRecord = z.infer<typeof BackupRecordSchema>;

export const BackupStatusSchema = z.object({
  /** The most recent backup, whatever its outcome. */
  last: BackupRecordSchema.nullable(),
  lastSucceeded: BackupRecordSchema.nullable(),
  /** The scheduled backup, when configured (SQLite stores). */
  schedule: z
    .object({
      intervalSeconds: z.number().int(),
      directory: z.string(),
      keep: z.number().int(),
    })
    .nullable(),
  recent: z.array(BackupRecordSchema),
});
export type BackupStatus = z.infer<typeof BackupStatusSchema>;
