import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

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
