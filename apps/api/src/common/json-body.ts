import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { wellFormedJson } from './request-hygiene.js';

/** `application/json`, with no charset or UTF-8: the only shape this reader takes. */
const PLAIN_JSON = /^application\/json[\t ]*(?:;[\t ]*charset[\t ]*=[\t ]*"?utf-8"?[\t ]*)?$/i;
const LENGTH = /^\d{1,10}$/;
/** A JSON escape `\u`: the only way a NUL or a lone surrogate reaches a string of parsed UTF-8 JSON. */
const ESCAPE = Buffer.from('\\u');
/**
 * JSON.parse with a reviver recurses and runs out of stack a few thousand levels deep (a 400 from
 * body-parser); plain JSON.parse does not. Fewer `[` and `{` bytes than this bound the nesting far
 * below that depth, so both parse alike; a body with more takes the reviver path, as before.
 */
const SHALLOW = 1000;
/** JSON whitespace is space, tab, LF and CR. */
const FIRST_NON_WHITESPACE = /[^ \t\n\r]/;

/** An error shaped as body-parser's: the problem filter reads `status` and `type`. */
function bodyError(message: string, type: string): Error {
  return Object.assign(new Error(message), { status: 400, statusCode: 400, expose: true, type });
}

/**
 * Text and value of a JSON request body exactly as body-parser's `json()` (strict, UTF-8, BOM
 * stripped) with the `wellFormedJson` reviver would give them. The reviver only changes strings
 * that hold a NUL or a lone surrogate, and in JSON decoded from UTF-8 both can only come from a
 * `\u` escape (Node's decoder turns invalid bytes and encoded surrogates into U+FFFD, and a raw
 * control character is a syntax error): without one, a plain `JSON.parse` gives the same value at a
 * fraction of the cost (a reviver makes V8 call back for every value) — for nesting too shallow to
 * exhaust the reviver's stack (SHALLOW).
 */
export function parseJsonBody(body: Buffer): unknown {
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const first = FIRST_NON_WHITESPACE.exec(text)?.[0];
  if (first !== '{' && first !== '[')
    throw bodyError('the request body is not a JSON object or array', 'entity.parse.failed');
  try {
    return body.includes(ESCAPE) || !shallow(body) ? JSON.parse(text, wellFormedJson) : JSON.parse(text);
  } catch (error) {
    throw bodyError((error as Error).message, 'entity.parse.failed');
  }
}

/** Fewer than SHALLOW opening brackets (counted on the bytes, strings included: an upper bound). */
function shallow(body: Buffer): boolean {
  let count = 0;
  for (const bracket of [0x5b, 0x7b]) {
    for (let at = body.indexOf(bracket); at !== -1; at = body.indexOf(bracket, at + 1)) {
      if (++count >= SHALLOW) return false;
    }
  }
  return true;
}

/**
 * The common JSON request read without body-parser's generic machinery (content-type and charset
 * parsing, iconv decoding, raw-body's stream wrapper): `Content-Type: application/json` (UTF-8 or
 * no charset), a `Content-Length` between 1 and `limit`, no `Content-Encoding` or chunked framing.
 * Anything else — compressed, chunked, empty, too large, another type or charset — is left to the
 * body-parser middleware mounted after this one, which then answers it as before (413, 415, …).
 */
export function plainJsonBody(limit: number): RequestHandler {
  return (request: Request, _response: Response, next: NextFunction) => {
    const headers = request.headers;
    const type = headers['content-type'];
    const length = headers['content-length'];
    const encoding = headers['content-encoding'];
    if (
      type === undefined ||
      length === undefined ||
      headers['transfer-encoding'] !== undefined ||
      (encoding !== undefined && encoding.toLowerCase() !== 'identity') ||
      !LENGTH.test(length) ||
      !PLAIN_JSON.test(type)
    ) {
      next();
      return;
    }
    const expected = Number(length);
    if (expected === 0 || expected > limit || request.complete) {
      next();
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      // Node's parser frames the body by Content-Length, so a shorter one means the peer went away.
      if (received !== expected) {
        next(bodyError('request size did not match content length', 'request.size.invalid'));
        return;
      }
      try {
        request.body = parseJsonBody(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
      } catch (error) {
        next(error);
        return;
      }
      next();
    };
    const onAbort = () => {
      cleanup();
      next(bodyError('request aborted', 'request.aborted'));
    };
    const cleanup = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onAbort);
      request.off('close', onAbort);
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onAbort);
    request.on('close', onAbort);
  };
}
