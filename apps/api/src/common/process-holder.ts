import { hostname } from 'node:os';

/**
 * Who this process is in leases (job intervals, search rebuilds): host, pid and a random suffix,
 * so a restarted process with a recycled pid is never mistaken for its predecessor.
 */
export const PROCESS_HOLDER = `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}`;
