import { describe, expect, it } from 'vitest';
import { receiveError, transferError } from './error-transfer.js';
import * as errors from './errors.js';
import { DomainError } from './errors.js';

/** An error through JSON, as it crosses from the append writer's thread (services/append-writer.ts). */
const across = (error: unknown) => receiveError(JSON.parse(JSON.stringify(transferError(error))));

describe('errors across a thread boundary', () => {
  it('every domain error comes back as its own class with its code, message, extra and fields', () => {
    const samples: DomainError[] = [
      new errors.NotFoundError('session'),
      new errors.RevisionConflictError(7),
      new errors.StaleGenerationError(3),
      new errors.SessionBusyError(),
      new errors.SessionClosedError('closed by compression'),
      new errors.ValidationError('bad', [{ path: 'messages.0', message: 'required' }]),
      new errors.IdempotencyRaceError(),
      new errors.StoreUnavailableError('down', { retryAfterSeconds: 3 }),
      new errors.RateLimitedError(9),
      new errors.DeadlineExceededError(100),
    ];
    // Every class the module exports is known by name on the receiving side.
    const classes = Object.values(errors).filter(
      (value): value is typeof DomainError => typeof value === 'function' && value.prototype instanceof DomainError,
    );
    expect(classes.length).toBeGreaterThan(15);
    for (const cls of classes) {
      const back = receiveError({
        domain: true,
        name: cls.name,
        code: 'conflict',
        message: 'm',
        extra: {},
        fields: {},
      });
      expect(back).toBeInstanceOf(cls);
    }
    for (const error of samples) {
      const back = across(error);
      expect(back).toBeInstanceOf(error.constructor);
      expect(back).toBeInstanceOf(DomainError);
      expect({ ...back, message: back.message, name: back.name }).toEqual({
        ...error,
        message: error.message,
        name: error.name,
      });
    }
    expect((across(new errors.RevisionConflictError(7)) as errors.RevisionConflictError).currentRevision).toBe(7);
  });

  it('any other error keeps its name, message and code', () => {
    const sqlite = Object.assign(new Error('NOT NULL constraint failed: messages.role'), {
      name: 'SqliteError',
      code: 'SQLITE_CONSTRAINT_NOTNULL',
    });
    const back = across(sqlite) as Error & { code?: string };
    expect(String(back)).toBe('SqliteError: NOT NULL constraint failed: messages.role');
    expect(back.code).toBe('SQLITE_CONSTRAINT_NOTNULL');
    expect(back).not.toBeInstanceOf(DomainError);
    expect(String(across('a thrown string'))).toBe('Error: a thrown string');
  });
});
