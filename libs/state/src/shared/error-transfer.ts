import * as errors from './errors.js';
import { DomainError } from './errors.js';

/** An error as it crosses a thread boundary (structured clone keeps no prototypes). */
export type TransferredError =
  | {
      domain: true;
      name: string;
      code: string;
      message: string;
      extra: Record<string, unknown>;
      fields: Record<string, unknown>;
    }
  | { domain: false; name: string; message: string; code?: string; stack?: string };

const domainClasses = new Map<string, typeof DomainError>(
  Object.values(errors)
    .filter(
      (value): value is typeof DomainError => typeof value === 'function' && value.prototype instanceof DomainError,
    )
    .map((cls) => [cls.name, cls]),
);

const isText = (value: unknown): value is string => typeof value === 'string';

export function transferError(error: unknown): TransferredError {
  if (error instanceof DomainError) {
    const fields: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(error)) {
      if (key !== 'code' && key !== 'extra' && key !== 'name' && key !== 'message') fields[key] = value;
    }
    return { domain: true, name: error.name, code: error.code, message: error.message, extra: error.extra, fields };
  }
  const e = error as { name?: unknown; message?: unknown; code?: unknown; stack?: unknown } | null;
  return {
    domain: false,
    name: isText(e?.name) ? e.name : 'Error',
    message: isText(e?.message) ? e.message : String(error),
    // A driver's code (SQLITE_BUSY, SQLITE_FULL, …): toDomainError reads it on the receiving side.
    ...(isText(e?.code) ? { code: e.code } : {}),
    // Where it was thrown (logged with a 500), not where it was received.
    ...(isText(e?.stack) ? { stack: e.stack } : {}),
  };
}

/** The error again, of its own class when it is a domain error (so `instanceof` checks hold). */
export function receiveError(transferred: TransferredError): Error {
  if (transferred.domain) {
    const cls = domainClasses.get(transferred.name) ?? DomainError;
    const error = Object.create(cls.prototype) as DomainError;
    Object.defineProperty(error, 'message', { value: transferred.message, writable: true, configurable: true });
    Object.assign(
      error,
      { code: transferred.code, extra: transferred.extra, name: transferred.name },
      transferred.fields,
    );
    return error;
  }
  const error = new Error(transferred.message) as Error & { code?: string };
  error.name = transferred.name;
  if (transferred.code !== undefined) error.code = transferred.code;
  if (transferred.stack !== undefined) error.stack = transferred.stack;
  return error;
}
