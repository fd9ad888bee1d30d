import { StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Response } from 'express';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Nest's Express adapter with a shorter way out for the common answer: a JSON object with a 200
 * or 201. Express's `res.json()` → `res.send()` parses and re-formats the content type twice
 * (mime lookup, charset), consults the ETag function and the request's freshness, and only then
 * writes; here the same headers and bytes are written directly. Every other answer — no body, a
 * string, a stream, an error object, a status without a body (204, 205, 304), a HEAD request, a
 * request with a conditional header (`If-None-Match`, `If-Modified-Since`: Express may answer
 * 304), a response that already has a content type, an app with ETags or JSON formatting
 * settings — goes through Nest's and Express's own path, unchanged.
 */
export class JsonReplyExpressAdapter extends ExpressAdapter {
  #plainJson: boolean | undefined;

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    const status = statusCode ?? response.statusCode;
    const request = response.req;
    if (
      (status === 200 || status === 201) &&
      typeof body === 'object' &&
      body !== null &&
      !(body instanceof StreamableFile) &&
      !(body instanceof Error) &&
      request.method !== 'HEAD' &&
      request.headers['if-none-match'] === undefined &&
      request.headers['if-modified-since'] === undefined &&
      response.getHeader('Content-Type') === undefined &&
      this.plainJson(response)
    ) {
      const json = JSON.stringify(body);
      if (typeof json === 'string') {
        response.statusCode = status;
        response.setHeader('Content-Type', JSON_TYPE);
        response.setHeader('Content-Length', Buffer.byteLength(json));
        return response.end(json);
      }
    }
    return super.reply(response, body, statusCode);
  }

  /** The app formats JSON as `JSON.stringify` does and sets no ETag (settings are fixed by then). */
  private plainJson(response: Response): boolean {
    if (this.#plainJson === undefined) {
      const app = response.app;
      this.#plainJson =
        !app.get('etag fn') && !app.get('json replacer') && !app.get('json spaces') && !app.get('json escape');
    }
    return this.#plainJson;
  }
}
