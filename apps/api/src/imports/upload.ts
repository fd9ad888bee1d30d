import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError, ValidationError } from '@statehouse/state';
import type { Request, Response } from 'express';

/** Media types a file upload may be sent as (SQLite has no registered one; both are in use). */
const FILE_TYPES = ['application/octet-stream', 'application/vnd.sqlite3', 'application/x-sqlite3'];

export interface Upload {
  path: string;
  dir: string;
  bytes: number;
  /** SHA-256 of the body, hex (an Idempotency-Key's fingerprint covers the file's content). */
  sha256: string;
  discard(): Promise<void>;
}

const tooLarge = (limit: number) =>
  new DomainError(
    'payload_too_large',
    `the file is larger than the limit of ${limit} bytes (STATEHOUSE_IMPORT_MAX_BYTES)`,
    {
      limit,
    },
  );

/**
 * Streams the request body to a new file in a private directory (0700/0600), counting bytes as
 * they arrive: a body over the limit is refused without being stored, and nothing is ever held
 * in memory. The JSON body parser leaves these media types alone.
 */
export async function receiveUpload(
  request: Request,
  response: Response,
  options: { maxBytes: number; dir: string },
): Promise<Upload> {
  const type = (request.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (!FILE_TYPES.includes(type)) {
    throw new ValidationError(
      `send the file itself as the body, with Content-Type: application/octet-stream (got ${type || 'none'})`,
    );
  }
  const declared = Number(request.header('content-length'));
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    // Stop here: the client learns at once, and the connection is not reused for the rest of the body.
    response.setHeader('Connection', 'close');
    request.resume();
    throw tooLarge(options.maxBytes);
  }
  const dir = await mkdtemp(join(options.dir, 'statehouse-upload-'));
  const path = join(dir, 'state.db');
  const discard = () => rm(dir, { recursive: true, force: true });
  let bytes = 0;
  const digest = createHash('sha256');
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      digest.update(chunk);
      if (bytes > options.maxBytes) callback(tooLarge(options.maxBytes));
      else callback(null, chunk);
    },
  });
  try {
    await pipeline(request, counter, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
  } catch (error) {
    await discard();
    if (error instanceof DomainError) {
      response.setHeader('Connection', 'close');
      request.unpipe();
      request.resume();
      throw error;
    }
    throw new ValidationError(`the upload did not complete: ${(error as Error).message}`);
  }
  if (bytes === 0) {
    await discard();
    throw new ValidationError('the request body is empty: send the Hermes state.db file');
  }
  return { path, dir, bytes, sha256: digest.digest('hex'), discard };
}
