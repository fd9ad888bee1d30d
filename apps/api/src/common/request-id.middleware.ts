import { randomUUID } from 'node:crypto';
import type { NextFunction, Response } from 'express';
import type { StatehouseRequest } from './request.js';

/** Every request gets an id (the caller's X-Request-Id when sane), echoed back and logged with 500s. */
export function requestIdMiddleware(request: StatehouseRequest, response: Response, next: NextFunction): void {
  const incoming = request.header('x-request-id');
  request.id = incoming && /^[A-Za-z0-9._:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
  response.setHeader('X-Request-Id', request.id);
  next();
}
