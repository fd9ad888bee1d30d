import { z } from 'zod';

/**
 * In a browser the dashboard runs under a CSP without 'unsafe-eval' (docs/security.md): zod's
 * probe for its eval-compiled fast path (made when an object schema is built) would be blocked
 * and reported as a violation, so in a browser schemas are built without it. Servers keep it.
 */
if ('window' in globalThis) z.config({ jitless: true });
