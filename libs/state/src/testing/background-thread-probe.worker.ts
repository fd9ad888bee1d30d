import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { lowerThreadPriority } from '../shared/background-thread.js';

/** A background thread that answers its own /proc stat line (shared/background-thread.test.ts). */
lowerThreadPriority();
parentPort!.postMessage(readFileSync('/proc/thread-self/stat', 'utf8'));
