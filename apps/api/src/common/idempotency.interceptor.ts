import { createHash } from 'node:crypto';
import {
  type CallHandler,
  type ExecutionContext,
  HttpStatus,
  Inject,
  Injectable,
  type NestInterceptor,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { canonicalJson, IdempotencyRaceError, type StateStore, ValidationError } from '@statehouse/state';
import type { Response } from 'express';
import { from, type Observable, of, switchMap } from 'rxjs';
import type { StatehouseRequest } from './request.js';
import { STATE_STORE } from './tokens.js';

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const HTTP_CODE_METADATA = '__httpCode__';
const STREAMED_BODY_METADATA = 'statehouse:streamedBody';

/**
 * A handler that streams its body itself (a file upload): the fingerprint is only complete once
 * the body has been read, so the handler settles the key with `settleStreamedIdempotency`
 * (replay, 422 or go on) instead of this interceptor answering before the body is read.
 */
export const StreamedBody = () => SetMetadata(STREAMED_BODY_METADATA, true);

/**
 * Folds the streamed body's digest into the request's fingerprint and looks the key up: the
 * stored answer when this is a retry of the same request (same key, same bytes), a 422 problem
 * when the key was used for another request, else null (go on; the answer is recorded after).
 */
export async function settleStreamedIdempotency(
  store: StateStore,
  request: StatehouseRequest,
  response: Response,
  bodySha256: string,
): Promise<{ body: unknown } | null> {
  const claim = request.idempotency;
  if (!claim || !request.user) return null;
  claim.fingerprint = createHash('sha256').update(`${claim.fingerprint}\nbody-sha256:${bodySha256}`).digest('hex');
  const found = await store.idempotency.lookup(request.user, claim.key, claim.fingerprint);
  if (found.kind === 'new') return null;
  // The stored answer is the record: nothing more to record for this retry.
  claim.recorded = true;
  response.status(found.status);
  response.setHeader('Idempotent-Replayed', 'true');
  return { body: found.body };
}

/**
 * `Idempotency-Key` on any POST/PUT/PATCH/DELETE: the first response is stored (in the same
 * transaction as the effect when the operation has one) and replayed for a retry of the same
 * request with `Idempotent-Replayed: true`; the same key with a different request → 422.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<StatehouseRequest>();
    const key = request.header('idempotency-key');
    if (key === undefined || !MUTATING.has(request.method) || !request.user) return next.handle();
    if (key.length === 0 || key.length > 255) {
      throw new ValidationError('Idempotency-Key must be 1 to 255 characters');
    }
    const principal = request.user;
    const fingerprint = createHash('sha256')
      .update(
        [
          request.method,
          request.originalUrl,
          request.header('if-match') ?? '',
          request.header('x-expected-generation') ?? '',
          canonicalJson(request.body ?? null),
        ].join('\n'),
      )
      .digest('hex');
    const status =
      this.reflector.get<number | undefined>(HTTP_CODE_METADATA, context.getHandler()) ??
      (request.method === 'POST' ? HttpStatus.CREATED : HttpStatus.OK);
    const response = context.switchToHttp().getResponse<Response>();

    const replay = async (): Promise<{ replayed: true; body: unknown } | null> => {
      // A streamed body's handler completes the fingerprint (settleStreamedIdempotency).
      const found = await this.store.idempotency.lookup(
        principal,
        key,
        request.idempotency?.fingerprint ?? fingerprint,
      );
      if (found.kind === 'new') return null;
      response.status(found.status);
      response.setHeader('Idempotent-Replayed', 'true');
      return { replayed: true, body: found.body };
    };

    // Run the handler; when it fails, a twin with the same key may have committed meanwhile: its record answers.
    const executeOrReplay = (): Observable<unknown> => {
      request.idempotency = { key, fingerprint, status, recorded: false };
      return from(this.execute(next, principal, request)).pipe(
        switchMap((outcome) => {
          if (outcome.kind === 'ok') return of(outcome.body);
          return from(replay()).pipe(
            switchMap((raced) => {
              if (raced) return of(raced.body);
              throw outcome.error;
            }),
          );
        }),
      );
    };

    // A streamed body is not read yet: its handler looks the key up once the fingerprint is complete.
    if (this.reflector.get<boolean | undefined>(STREAMED_BODY_METADATA, context.getHandler())) return executeOrReplay();
    return from(replay()).pipe(switchMap((replayed) => (replayed ? of(replayed.body) : executeOrReplay())));
  }

  private async execute(
    next: CallHandler,
    principal: NonNullable<StatehouseRequest['user']>,
    request: StatehouseRequest,
  ): Promise<{ kind: 'ok'; body: unknown } | { kind: 'race'; error: unknown }> {
    try {
      const body = await new Promise<unknown>((resolve, reject) => {
        let last: unknown;
        next.handle().subscribe({ next: (value) => (last = value), error: reject, complete: () => resolve(last) });
      });
      if (request.idempotency && !request.idempotency.recorded) {
        await this.store.idempotency.recordLate(principal, request.idempotency, body);
      }
      return { kind: 'ok', body };
    } catch (error) {
      // A twin with the same key may have committed meanwhile (whatever this attempt tripped on):
      // the caller replays its record if there is one, else sees this error.
      if (error instanceof IdempotencyRaceError || request.idempotency) return { kind: 'race', error };
      throw error;
    }
  }
}
