import { SetMetadata } from '@nestjs/common';
import type { Request } from 'express';

export const AUTH_MODE = 'statehouse:auth-mode';
export type AuthMode = 'required' | 'optional' | 'public';

/** No credentials needed (health, login). */
export const Public = () => SetMetadata(AUTH_MODE, 'public' satisfies AuthMode);
/** Credentials are read when present but not required (logout, metrics from loopback). */
export const OptionalAuth = () => SetMetadata(AUTH_MODE, 'optional' satisfies AuthMode);

export const ADMIN_ONLY = 'statehouse:admin-only';
/**
 * An admin-only route: the guard answers `403 forbidden` to a member before anything else runs
 * (the domain service checks again: it is the rule's owner), and the OpenAPI document says so.
 * On a route with optional credentials the handler applies the rule itself (metrics: loopback).
 */
export const AdminOnly = () => SetMetadata(ADMIN_ONLY, true);

export const READ_ONLY = 'statehouse:read-only';
/** Decides, from the request alone, that this call of a mutating route only reads. */
export type ReadOnlyWhen = (request: Request) => boolean;

/**
 * A call that only reads — a POST whose input does not fit a query string, or a dry run — changes
 * nothing, so the same-origin rule for cookie-authenticated mutations does not apply to it
 * (docs/security.md, "CSRF"). With `when`, only the calls it accepts are read-only.
 */
export const ReadOnly = (when: ReadOnlyWhen | true = true) => SetMetadata(READ_ONLY, when);

/** `?dryRun=true|1`, read exactly as the query schemas read it (QueryBooleanSchema). */
export const isDryRunQuery: ReadOnlyWhen = (request) => {
  const value = request.query?.dryRun;
  return value === 'true' || value === '1';
};
