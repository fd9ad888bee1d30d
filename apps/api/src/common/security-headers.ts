import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import type { StatehouseRequest } from './request.js';
import { refuseNulInUrl } from './request-hygiene.js';
import { requestIdMiddleware } from './request-id.middleware.js';

/**
 * Response headers of every API answer (docs/security.md, "Headers"): no MIME sniffing, never
 * framed, no referrer, and a CSP that lets Swagger UI at /docs run from its own files and nothing
 * else (it sets inline style attributes and uses data: images).
 */
export function securityHeaders(options: { https: boolean }): RequestHandler {
  return helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    // Only meaningful over HTTPS; a plain-HTTP deployment must not pin a host to HTTPS.
    strictTransportSecurity: options.https ? { maxAge: 15_552_000 } : false,
  });
}

/**
 * Answers carry sessions, transcripts and receipts: no cache (browser or shared) may keep them.
 * Swagger UI's own static files are the exception (public, unchanging between releases).
 */
export function noStore(request: Request, response: Response, next: NextFunction): void {
  if (!request.path.startsWith('/docs')) response.setHeader('Cache-Control', 'no-store');
  next();
}

/**
 * What a helmet middleware sets, computed once: none of our headers depends on the request (no
 * nonces), so running helmet's dozen sub-middlewares and rebuilding the CSP string on every
 * request buys nothing.
 */
export function precomputeHeaders(handler: RequestHandler): [string, string][] {
  const headers = new Map<string, string>();
  const response = {
    setHeader(name: string, value: unknown) {
      headers.set(name, String(value));
      return response;
    },
    removeHeader(name: string) {
      headers.delete(name);
    },
    getHeader: (name: string) => headers.get(name),
  };
  let done = false;
  handler({ headers: {}, method: 'GET', url: '/' } as Request, response as unknown as Response, (error?: unknown) => {
    if (error) throw error;
    done = true;
  });
  if (!done) throw new Error('the security headers middleware did not finish synchronously');
  return [...headers];
}

/**
 * Every request's preamble in one middleware (one router layer instead of four): its id, the
 * security headers (precomputed), no-store, and the NUL check of the URL.
 */
export function requestPreamble(options: { https: boolean }): RequestHandler {
  const headers = precomputeHeaders(securityHeaders(options));
  // The first two always continue; the NUL check decides.
  const continues = () => undefined;
  return (request, response, next) => {
    requestIdMiddleware(request as StatehouseRequest, response, continues);
    for (const [name, value] of headers) response.setHeader(name, value);
    noStore(request, response, continues);
    refuseNulInUrl(request as StatehouseRequest, response, next);
  };
}
