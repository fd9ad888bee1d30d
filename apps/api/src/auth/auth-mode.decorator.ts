import { SetMetadata } from '@nestjs/common';

export const AUTH_MODE = 'statehouse:auth-mode';
export type AuthMode = 'required' | 'optional' | 'public';

/** No credentials needed (health, login). */
export const Public = () => SetMetadata(AUTH_MODE, 'public' satisfies AuthMode);
/** Credentials are read when present but not required (logout, metrics from loopback). */
export const OptionalAuth = () => SetMetadata(AUTH_MODE, 'optional' satisfies AuthMode);

export const READ_ONLY = 'statehouse:read-only';
/**
 * A POST that only reads (its input does not fit a query string): it changes nothing, so the
 * same-origin rule for cookie-authenticated mutations does not apply (docs/security.md, "CSRF").
 */
export const ReadOnly = () => SetMetadata(READ_ONLY, true);
