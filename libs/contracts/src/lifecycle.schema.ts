import { z } from 'zod';
import { IdSchema, IsoDateSchema } from './common.schema.js';
import { EndReasonInputSchema, LineageKindSchema, ResetReasonSchema } from './lineage.schema.js';
import { SessionSchema } from './session.schema.js';

export const EndSessionRequestSchema = z
  .object({ reason: EndReasonInputSchema })
  .strict()
  .meta({ examples: [{ reason: 'cli_close' }] });
export type EndSessionRequest = z.infer<typeof EndSessionRequestSchema>;

export const ReopenSessionRequestSchema = z
  .object({
    transportProfile: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe(
        "the bot or adapter asking: a deliberate close is cleared only by the one the conversation's route delivers through (its transportProfile, else its source), or by a dashboard user",
      ),
    host: z.string().min(1).max(128).optional().describe('older name of transportProfile'),
  })
  .strict();
export type ReopenSessionRequest = z.infer<typeof ReopenSessionRequestSchema>;

export const COMPRESS_SUMMARY_MAX = 200_000;
export const CompressRequestSchema = z
  .object({
    summary: z.string().min(1).max(COMPRESS_SUMMARY_MAX),
    keepLastMessages: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .default(0)
      .describe('visible messages copied into the continuation'),
    childId: IdSchema.optional(),
  })
  .strict();
export type CompressRequest = z.infer<typeof CompressRequestSchema>;

export const BranchRequestSchema = z
  .object({
    childId: IdSchema.optional(),
    uptoMessageId: z.number().int().min(1).optional().describe('copy the transcript up to and including this message'),
    title: z.string().max(1000).optional(),
  })
  .strict();
export type BranchRequest = z.infer<typeof BranchRequestSchema>;

export const ResetRequestSchema = z
  .object({
    reason: ResetReasonSchema,
    childId: IdSchema.optional(),
    transportProfile: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe('the bot or adapter the new conversation is delivered by (a switch); default: the parent’s'),
  })
  .strict();
export type ResetRequest = z.infer<typeof ResetRequestSchema>;

export const RewindRequestSchema = z.object({ toMessageId: z.number().int().min(1) }).strict();
export type RewindRequest = z.infer<typeof RewindRequestSchema>;

export const RewindResponseSchema = z.object({
  session: SessionSchema,
  rewoundIds: z.array(z.number().int()).describe('messages marked inactive'),
});
export type RewindResponse = z.infer<typeof RewindResponseSchema>;

export const ReplaceMessagesResponseSchema = z.object({
  session: SessionSchema,
  ids: z.array(z.number().int()).describe('the new live messages, in order'),
  replacedIds: z.array(z.number().int()).describe('the messages that left the live transcript'),
});
export type ReplaceMessagesResponse = z.infer<typeof ReplaceMessagesResponseSchema>;

/** Compress, branch and reset answer with the new child and the parent as it now stands. */
export const ChildResponseSchema = z.object({ child: SessionSchema, parent: SessionSchema });
export type ChildResponse = z.infer<typeof ChildResponseSchema>;

export const LineageNodeSchema = z.object({
  id: z.string(),
  parentSessionId: z.string().nullable(),
  lineageKind: LineageKindSchema.nullable(),
  title: z.string().nullable(),
  source: z.string(),
  startedAt: IsoDateSchema,
  endedAt: IsoDateSchema.nullable(),
  endReason: z.string().nullable(),
  messageCount: z.number().int(),
  busy: z.boolean(),
});
export type LineageNode = z.infer<typeof LineageNodeSchema>;

export const LineageResponseSchema = z.object({
  rootId: z.string().describe("root of this session's compression chain"),
  tipId: z.string().describe('tip of the compression chain (where the conversation continues)'),
  chain: z.array(z.string()).describe('compression chain, root → tip'),
  treeRootId: z.string().describe('top of the whole tree across all edge kinds'),
  nodes: z.array(LineageNodeSchema),
  edges: z.array(z.object({ from: z.string(), to: z.string(), kind: LineageKindSchema })),
  truncated: z.boolean().describe('the tree was larger than the walk bound'),
});
export type LineageResponse = z.infer<typeof LineageResponseSchema>;

export const IdParamSchema = IdSchema;
