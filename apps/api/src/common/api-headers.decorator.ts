import { applyDecorators } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';

/** OpenAPI documentation of the precondition and idempotency headers. */
export const IfMatchHeader = (required = true) =>
  ApiHeader({
    name: 'If-Match',
    required,
    description: 'the revision the change is based on, e.g. "3" (428 if missing, 412 if stale)',
  });

export const ExpectedGenerationHeader = (required = true) =>
  ApiHeader({
    name: 'X-Expected-Generation',
    required,
    description: 'the fencing generation the writer holds (409 stale_generation if a newer turn began)',
  });

export const IdempotencyKeyHeader = () =>
  ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description: 'replays the first response for a retry of the same request; 422 for a different request',
  });

export const Mutation = () => applyDecorators(IdempotencyKeyHeader());

export const TurnIdHeader = () =>
  ApiHeader({
    name: 'X-Turn-Id',
    required: false,
    description:
      "the caller's own live turn: its holder may write to and run destructive operations on its busy session (a turn that is not the live one is stale: 409 stale_generation)",
  });

/** Optional X-Expected-Generation / X-Turn-Id: what a writer presents while another holder's turn is live. */
export const WriterFenceHeaders = () => applyDecorators(ExpectedGenerationHeader(false), TurnIdHeader());

/** If-Match + X-Expected-Generation (+ optional X-Turn-Id): what destructive operations present. */
export const DestructiveHeaders = () =>
  applyDecorators(IfMatchHeader(), ExpectedGenerationHeader(), TurnIdHeader(), IdempotencyKeyHeader());
