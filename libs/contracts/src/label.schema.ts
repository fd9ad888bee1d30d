import { z } from 'zod';
import { IdSchema, IsoDateSchema } from './common.schema.js';

// ---- labels people tag conversations with (docs/domain.md §15) ------------------------------------

/** Colours are design-token names, never raw values: the dashboard maps each to a contrast-checked pair. */
export const LABEL_COLOURS = ['grey', 'red', 'orange', 'yellow', 'green', 'teal', 'blue', 'purple', 'pink'] as const;
export const LabelColourSchema = z.enum(LABEL_COLOURS);
export type LabelColour = z.infer<typeof LabelColourSchema>;

export const LABEL_NAME_MAX = 48;
/** A profile keeps at most this many labels (a label picker, not a taxonomy). */
export const LABELS_MAX = 200;
/** Sessions one apply or remove names at most (the list's selection is a page). */
export const LABEL_BULK_MAX = 500;

/**
 * Printable text without `,` (the list filter takes names comma-separated) or `/` (a label is named
 * in the path), no surrounding spaces.
 */
export const LabelNameSchema = z
  .string()
  .min(1)
  .max(LABEL_NAME_MAX)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  .regex(/^[^\u0000-\u001F\u007F,/]+$/, 'printable text without "," or "/"')
  .refine((name) => name.trim() === name, 'no leading or trailing spaces');

/** The names of a list filter: comma-separated, at most 10. */
export const LabelNameListSchema = z
  .string()
  .max(LABEL_NAME_MAX * 10 + 9)
  .transform((value) => value.split(',').map((name) => name.trim()))
  .pipe(z.array(LabelNameSchema).min(1).max(10));

export const LabelSchema = z.object({
  name: z.string(),
  colour: LabelColourSchema,
  sessionCount: z.number().int().describe('sessions carrying the label'),
  createdAt: IsoDateSchema,
  updatedAt: IsoDateSchema,
  revision: z.number().int().describe('for If-Match on rename, recolour and delete'),
});
export type Label = z.infer<typeof LabelSchema>;
export const LabelListSchema = z.object({ items: z.array(LabelSchema).describe('by name, case-insensitively') });
export type LabelList = z.infer<typeof LabelListSchema>;

/** A label as a session carries it. */
export const SessionLabelSchema = z.object({ name: z.string(), colour: LabelColourSchema });
export type SessionLabel = z.infer<typeof SessionLabelSchema>;
export const SessionLabelListSchema = z.object({ items: z.array(SessionLabelSchema).describe('by name') });
export type SessionLabelList = z.infer<typeof SessionLabelListSchema>;

export const CreateLabelRequestSchema = z
  .object({ name: LabelNameSchema, colour: LabelColourSchema.default('grey') })
  .strict()
  .meta({ examples: [{ name: 'needs review', colour: 'orange' }] });
export type CreateLabelRequest = z.infer<typeof CreateLabelRequestSchema>;

export const UpdateLabelRequestSchema = z
  .object({ name: LabelNameSchema.optional(), colour: LabelColourSchema.optional() })
  .strict()
  .refine((body) => body.name !== undefined || body.colour !== undefined, 'name or colour')
  .meta({ examples: [{ name: 'reviewed', colour: 'green' }] });
export type UpdateLabelRequest = z.infer<typeof UpdateLabelRequestSchema>;

export const LabelSessionsRequestSchema = z
  .object({
    sessionIds: z
      .array(IdSchema)
      .min(1)
      .max(LABEL_BULK_MAX)
      .describe("sessions of the label's profile (all of them, or nothing changes)"),
  })
  .strict()
  .meta({ examples: [{ sessionIds: ['01JD8X3C2M4Q7R9T0V1W2X3Y4Z'] }] });
export type LabelSessionsRequest = z.infer<typeof LabelSessionsRequestSchema>;

export const LabelSessionsResponseSchema = z.object({
  label: LabelSchema,
  changed: z
    .number()
    .int()
    .describe('sessions that gained (apply) or lost (remove) the label; the others had it already (or not)'),
});
export type LabelSessionsResponse = z.infer<typeof LabelSessionsResponseSchema>;
