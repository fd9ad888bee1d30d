import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { type Preconditions as PreconditionValues, ValidationError } from '@statehouse/state';
import type { Request } from 'express';

/** `If-Match: "<revision>"` (a weak or bare number is accepted too). */
export function parseIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header === '') return undefined;
  const match = /^(?:W\/)?"?(\d{1,15})"?$/.exec(header.trim());
  if (!match) throw new ValidationError('If-Match must be a quoted revision number, e.g. "3"');
  return Number(match[1]);
}

export function parseExpectedGeneration(header: string | undefined): number | undefined {
  if (header === undefined || header === '') return undefined;
  if (!/^\d{1,15}$/.test(header.trim()))
    throw new ValidationError('X-Expected-Generation must be a non-negative integer');
  return Number(header.trim());
}

export function parseTurnId(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(header)) throw new ValidationError('X-Turn-Id must be a turn id');
  return header;
}

/** The caller's preconditions; whether they are required is the domain service's rule. */
export const Preconditions = createParamDecorator((_data: unknown, context: ExecutionContext): PreconditionValues => {
  const request = context.switchToHttp().getRequest<Request>();
  return {
    ifMatch: parseIfMatch(request.header('if-match')),
    expectedGeneration: parseExpectedGeneration(request.header('x-expected-generation')),
    turnId: parseTurnId(request.header('x-turn-id')),
  };
});
