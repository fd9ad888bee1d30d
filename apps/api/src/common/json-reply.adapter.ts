import http, { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { type NestApplicationOptions, StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Express, Response } from 'express';

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
 *
 * Its HTTP server also builds each request and response with Express's prototypes already in
 * place (`serverClasses`).
 */
export class JsonReplyExpressAdapter extends ExpressAdapter {
  #plainJson: boolean | undefined;

  override initHttpServer(options: NestApplicationOptions): void {
    super.initHttpServer(options);
    // Nest tracks the connections of the server it made for forceCloseConnections: keep it then.
    if (options.forceCloseConnections) return;
    const app = this.getInstance<Express>();
    const classes = serverClasses(app);
    // The server Nest made has not listened: nothing of it is left to close.
    this.httpServer = options.httpsOptions
      ? https.createServer({ ...options.httpsOptions, ...classes }, app)
      : http.createServer(classes, app);
  }

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

/**
 * Request and response classes whose objects are born with the app's prototypes (`app.request`,
 * `app.response`). Express gives every request and response its app's prototype on arrival
 * (`Object.setPrototypeOf` in `app.handle`); changing an object's prototype makes V8 give it a new
 * hidden class, and those requests' objects then outlive the young generation: on a bare Node
 * server under 32 keep-alive clients, the same `setPrototypeOf` per
 * request cut its throughput from about 21 600 to 14 700 requests in 4 s and brought 4 full
 * (mark-compact) collections where there were none. Setting the prototype an object already has
 * is a no-op in V8, so with these classes Express's step changes nothing (18 200 requests, no full
 * collection). docs/decisions/0014-requests-born-with-express-prototypes.md.
 */
export function serverClasses(app: Express): {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
} {
  // Node's own classes are constructor functions: called on an object of another prototype, they
  // set up a request or response exactly as `new IncomingMessage(socket)` would.
  function AppRequest(this: IncomingMessage, socket: Socket) {
    IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, request: IncomingMessage, options?: unknown) {
    (ServerResponse as unknown as (this: ServerResponse, ...args: unknown[]) => void).call(this, request, options);
  }
  AppResponse.prototype = app.response;
  return {
    IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
  };
}
