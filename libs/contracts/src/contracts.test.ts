import { describe, expect, it } from 'vitest';
import {
  CreateSessionRequestSchema,
  GatewayHeartbeatSchema,
  InstantSchema,
  ListSessionsQuerySchema,
  MessageInputSchema,
  PROBLEM_CODES,
  PROBLEM_STATUS,
  SearchQuerySchema,
  UpdateSessionRequestSchema,
  UpdateUserRequestSchema,
  UsageQuerySchema,
} from './index.js';

describe('contracts', () => {
  it('accepts instants in 1970..9999 only, as ISO-8601 with a zone or epoch milliseconds', () => {
    for (const ok of [
      '2026-11-30T08:00:00Z',
      '2026-11-30T08:00:00.123+01:00',
      0,
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ]) {
      expect(InstantSchema.safeParse(ok).success, String(ok)).toBe(true);
    }
    for (const bad of [
      Date.UTC(300_000, 0, 1),
      8.64e15 + 1,
      Date.UTC(10_000, 0, 1),
      -1,
      1.5,
      Number.NaN,
      '+300000-01-01T00:00:00.000Z',
      '2026-11-30',
      '2026-11-30T08:00:00',
      'tomorrow',
    ]) {
      expect(InstantSchema.safeParse(bad).success, String(bad)).toBe(false);
    }
    expect(
      GatewayHeartbeatSchema.safeParse({ profile: 'p', host: 'h', pid: 1, startedAt: Date.UTC(300_000, 0, 1) }).success,
    ).toBe(false);
  });

  it('reads list queries from strings with defaults, and booleans as words', () => {
    expect(ListSessionsQuerySchema.parse({})).toMatchObject({
      status: 'all',
      archived: 'exclude',
      limit: 50,
      order: 'recent',
      includeChildren: false,
    });
    expect(ListSessionsQuerySchema.parse({ includeChildren: 'false', limit: '10' })).toMatchObject({
      includeChildren: false,
      limit: 10,
    });
    expect(ListSessionsQuerySchema.parse({ includeChildren: 'true' }).includeChildren).toBe(true);
    expect(ListSessionsQuerySchema.safeParse({ limit: '201' }).success).toBe(false);
  });

  it('[session.lineage-typed] requires parentSessionId and lineageKind together and refuses unknown fields', () => {
    expect(CreateSessionRequestSchema.safeParse({ profile: 'p', source: 'cli', parentSessionId: 'x' }).success).toBe(
      false,
    );
    expect(CreateSessionRequestSchema.safeParse({ profile: 'p', source: 'cli', createdSource: 'x' }).success).toBe(
      false,
    );
    expect(
      CreateSessionRequestSchema.safeParse({
        profile: 'p',
        source: 'cli',
        parentSessionId: 'x',
        lineageKind: 'delegate',
      }).success,
    ).toBe(true);
  });

  it('[profiles.name-format] accepts profile names with underscores and refuses upper case', () => {
    expect(CreateSessionRequestSchema.safeParse({ profile: 'a_b-1', source: 'cli' }).success).toBe(true);
    expect(CreateSessionRequestSchema.safeParse({ profile: 'A', source: 'cli' }).success).toBe(false);
  });

  it('[messages.content-kept] keeps structured content as given', () => {
    const parts = [
      { type: 'text', text: 'hi' },
      { type: 'image_url', image_url: { url: 'x' } },
    ];
    expect(MessageInputSchema.parse({ role: 'user', content: parts }).content).toEqual(parts);
  });

  it('refuses an empty update', () => {
    expect(UpdateSessionRequestSchema.safeParse({}).success).toBe(false);
  });

  it('maps every problem code to an HTTP status', () => {
    for (const code of PROBLEM_CODES) expect(PROBLEM_STATUS[code]).toBeGreaterThanOrEqual(400);
  });

  it('reads stats queries with defaults and refuses inverted, oversized and malformed ranges', () => {
    expect(UsageQuerySchema.parse({})).toMatchObject({ bucket: 'day', groupBy: 'source' });
    expect(UsageQuerySchema.safeParse({ from: '2026-11-01', to: '2026-11-30T12:00:00Z' }).success).toBe(true);
    expect(UsageQuerySchema.safeParse({ from: '2026-11-02', to: '2026-11-01' }).success).toBe(false);
    expect(UsageQuerySchema.safeParse({ from: '2026-11-01', to: '2026-11-01' }).success).toBe(false);
    expect(UsageQuerySchema.safeParse({ from: '2020-01-01', to: '2026-01-01' }).success).toBe(false);
    expect(UsageQuerySchema.safeParse({ bucket: 'hour', from: '2026-01-01', to: '2026-03-01' }).success).toBe(false);
    expect(UsageQuerySchema.safeParse({ bucket: 'year' }).success).toBe(false);
    expect(UsageQuerySchema.safeParse({ timeZone: 'Mars/Olympus' }).success).toBe(false);
    expect(UsageQuerySchema.safeParse({ from: 'yesterday' }).success).toBe(false);
    expect(UsageQuerySchema.safeParse({ from: '2026-02-30' }).success).toBe(false);
    expect(UsageQuerySchema.safeParse({ groupBy: 'user' }).success).toBe(false);
  });

  it('reads list date ranges and refuses an inverted one', () => {
    expect(ListSessionsQuerySchema.safeParse({ startedFrom: '2026-11-01', startedTo: '2026-11-02' }).success).toBe(
      true,
    );
    expect(ListSessionsQuerySchema.safeParse({ activeFrom: '2026-11-02', activeTo: '2026-11-01' }).success).toBe(false);
    expect(SearchQuerySchema.safeParse({ q: 'x', from: 'not a date' }).success).toBe(false);
  });

  it('refuses an empty user update and unknown fields', () => {
    expect(UpdateUserRequestSchema.safeParse({}).success).toBe(false);
    expect(UpdateUserRequestSchema.safeParse({ password: 'x' }).success).toBe(false);
    expect(UpdateUserRequestSchema.safeParse({ disabled: true }).success).toBe(true);
  });
});
