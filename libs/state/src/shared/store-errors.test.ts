import { describe, expect, it } from 'vitest';
import { DeadlineExceededError, StoreUnavailableError } from './errors.js';
import { toDomainError } from './store-errors.js';

describe('toDomainError', () => {
  it('keeps an error whose code is not a string as it is (it threw a TypeError on code.startsWith)', () => {
    for (const code of [404, 0, 23505, true, { nested: 1 }]) {
      const error = Object.assign(new Error('something else'), { code });
      expect(toDomainError(error)).toBe(error);
    }
    // A numeric errno-like code that reads as an outage class still maps by its text.
    expect(toDomainError(Object.assign(new Error('x'), { code: 57014 }))).toBeInstanceOf(Error);
  });

  it('tolerates throws that are not errors, and messages that are not strings', () => {
    expect(toDomainError(null)).toBeNull();
    expect(toDomainError(undefined)).toBeUndefined();
    expect(toDomainError('plain text')).toBe('plain text');
    const odd = { code: 'XX000', message: 42 };
    expect(toDomainError(odd)).toBe(odd);
  });

  it('still maps the infrastructure failures of both drivers', () => {
    expect(toDomainError(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' }))).toBeInstanceOf(
      StoreUnavailableError,
    );
    expect(toDomainError(Object.assign(new Error('gone'), { code: '57P01' }))).toBeInstanceOf(StoreUnavailableError);
    // A prepared statement made stale by another replica's migration: retried, it runs unnamed.
    expect(
      toDomainError(Object.assign(new Error('cached plan must not change result type'), { code: '0A000' })),
    ).toBeInstanceOf(StoreUnavailableError);
    const unsupported = Object.assign(new Error('cannot use this feature'), { code: '0A000' });
    expect(toDomainError(unsupported)).toBe(unsupported);
    expect(
      toDomainError(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })),
    ).toBeInstanceOf(DeadlineExceededError);
  });
});
