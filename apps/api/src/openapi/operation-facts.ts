import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { ADMIN_ONLY, AUTH_MODE, type AuthMode, READ_ONLY } from '../auth/auth-mode.decorator.js';
import { EVENT_STREAM, STORE_FREE, type StreamEvent, THROTTLED } from '../common/operation-facts.decorator.js';
import { RevisionEtagInterceptor } from '../common/revision-etag.interceptor.js';

/** Nest's own route metadata keys (@nestjs/common/constants). */
const METHOD_METADATA = 'method';
const PATH_METADATA = 'path';
const INTERCEPTORS_METADATA = '__interceptors__';

/**
 * What the OpenAPI document knows about an operation, read from what the route already declares:
 * its auth decorator, `@AdminOnly`, `@ReadOnly`, the precondition and idempotency headers, its
 * parameters and body (zod contracts), its interceptors and the facts of
 * common/operation-facts.decorator.ts. The problem codes an operation answers are derived from
 * these (problem-scopes.ts), never listed per operation.
 */
export interface OperationFacts {
  operationId: string;
  /** Upper case: GET, POST, … */
  method: string;
  /** The OpenAPI path template: /v1/sessions/{id}. */
  path: string;
  tag: string;
  auth: AuthMode;
  adminOnly: boolean;
  /** Only the dashboard cookie is accepted (a bearer token's principal is refused with 403). */
  cookieOnly: boolean;
  /** A POST/PUT/PATCH/DELETE that changes something (a read-only POST or dry run is not), at least sometimes. */
  mutation: boolean;
  pathParams: string[];
  queryFields: string[];
  /** Top-level members of a JSON request body. */
  bodyFields: string[];
  hasBody: boolean;
  /** The body is JSON (`application/json`). */
  jsonBody: boolean;
  /** Request headers the operation declares, and whether each is required. */
  headers: Record<string, 'required' | 'optional'>;
  /** `Idempotency-Key` is honoured (any authenticated POST/PUT/PATCH/DELETE: the global interceptor). */
  idempotent: boolean;
  throttled: boolean;
  storeFree: boolean;
  /** Single-session answers carry `ETag: "<revision>"` (RevisionEtagInterceptor). */
  revisionEtag: boolean;
  events?: Record<string, StreamEvent>;
}

/** What only the handler's metadata says (the rest is in the generated operation). */
export interface HandlerFacts {
  auth: AuthMode;
  readOnly: 'always' | 'sometimes' | 'never';
  adminOnly: boolean;
  throttled: boolean;
  storeFree: boolean;
  revisionEtag: boolean;
  events?: Record<string, StreamEvent>;
}

/**
 * The operation id of a route: its controller's resource and the handler's name, e.g.
 * `SessionsController.get` → `sessionsGet`. Stable while the names are; a generated client's method names.
 */
export function operationIdOf(controllerKey: string, methodKey: string): string {
  const resource = controllerKey.replace(/Controller$/, '');
  return `${resource.charAt(0).toLowerCase()}${resource.slice(1)}${methodKey.charAt(0).toUpperCase()}${methodKey.slice(1)}`;
}

/** Every route handler of the application by operation id, with the facts its metadata states. */
export function readHandlerFacts(app: INestApplication): Map<string, HandlerFacts> {
  const facts = new Map<string, HandlerFacts>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
      if (!controller?.prototype) continue;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = Object.getOwnPropertyDescriptor(controller.prototype, name)?.value;
        if (typeof handler !== 'function' || name === 'constructor') continue;
        if (Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        if (Reflect.getMetadata(PATH_METADATA, handler) === undefined) continue;
        const read = <T>(key: string): T | undefined =>
          Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, controller);
        const readOnly = read<unknown>(READ_ONLY);
        const interceptors = (read<unknown[]>(INTERCEPTORS_METADATA) ?? []) as unknown[];
        facts.set(operationIdOf(controller.name, name), {
          auth: read<AuthMode>(AUTH_MODE) ?? 'required',
          readOnly: readOnly === true ? 'always' : typeof readOnly === 'function' ? 'sometimes' : 'never',
          adminOnly: read<boolean>(ADMIN_ONLY) === true,
          throttled: read<boolean>(THROTTLED) === true,
          storeFree: read<boolean>(STORE_FREE) === true,
          revisionEtag: interceptors.includes(RevisionEtagInterceptor),
          events: read<Record<string, StreamEvent>>(EVENT_STREAM),
        });
      }
    }
  }
  return facts;
}
