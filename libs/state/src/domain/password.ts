import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Password hashes: scrypt, encoded `scrypt$N$r$p$salt$hash` so the parameters travel with each
 * hash. N = 2^17, r = 8, p = 1 (128 MiB and about half a second of one core per hash) is the
 * current guidance; a hash made with weaker parameters is upgraded at the next successful login
 * (`needsRehash`). See docs/security.md, "Passwords".
 */
export interface ScryptParameters {
  N: number;
  r: number;
  p: number;
}

export const SCRYPT_PARAMETERS: Readonly<ScryptParameters> = Object.freeze({ N: 2 ** 17, r: 8, p: 1 });
const KEY_LENGTH = 64;
const SALT_BYTES = 16;

/**
 * Each hash holds 128·N·r bytes while it runs: at most this many run at once per process (the
 * rest queue), so a burst of logins or user creations costs a bounded 256 MiB, not 128 MiB each.
 */
const MAX_CONCURRENT_HASHES = 2;

/** What a stored hash may ask for; anything else is treated as not matching (a tampered row). */
const LIMITS = { minLogN: 10, maxLogN: 20, maxR: 32, maxP: 16 };

let running = 0;
const waiting: (() => void)[] = [];

async function withHashSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT_HASHES) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function derive(password: string, salt: Buffer, { N, r, p }: ScryptParameters): Promise<Buffer> {
  return withHashSlot(
    () =>
      new Promise((resolve, reject) =>
        scrypt(password, salt, KEY_LENGTH, { N, r, p, maxmem: 128 * N * r * p + 16 * 1024 * 1024 }, (error, key) =>
          error ? reject(error) : resolve(key),
        ),
      ),
  );
}

export async function hashPassword(
  password: string,
  parameters: ScryptParameters = SCRYPT_PARAMETERS,
): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, parameters);
  const { N, r, p } = parameters;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

interface ParsedHash extends ScryptParameters {
  salt: Buffer;
  key: Buffer;
}

function parseHash(encoded: string): ParsedHash | null {
  const [scheme, n, r, p, salt, key, ...rest] = encoded.split('$');
  if (scheme !== 'scrypt' || !salt || !key || rest.length > 0) return null;
  const [N, R, P] = [Number(n), Number(r), Number(p)];
  const logN = Math.log2(N);
  if (!Number.isInteger(logN) || logN < LIMITS.minLogN || logN > LIMITS.maxLogN) return null;
  if (!Number.isInteger(R) || R < 1 || R > LIMITS.maxR || !Number.isInteger(P) || P < 1 || P > LIMITS.maxP) {
    return null;
  }
  return { N, r: R, p: P, salt: Buffer.from(salt, 'base64url'), key: Buffer.from(key, 'base64url') };
}

export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parsed = parseHash(encoded);
  if (!parsed || parsed.key.length === 0) return false;
  const actual = await derive(password, parsed.salt, parsed);
  return actual.length === parsed.key.length && timingSafeEqual(actual, parsed.key);
}

/** True when the hash was made with weaker parameters than `current` (or cannot be read). */
export function needsRehash(encoded: string, current: ScryptParameters = SCRYPT_PARAMETERS): boolean {
  const parsed = parseHash(encoded);
  if (!parsed) return true;
  return parsed.N < current.N || parsed.r < current.r || parsed.p < current.p;
}

const dummyHashes = new Map<string, Promise<string>>();
/**
 * A hash to verify against when the user does not exist, so timing does not reveal usernames.
 * Made on first use (not at import: every process that loads the state layer would pay for it).
 */
export function dummyPasswordHash(parameters: ScryptParameters = SCRYPT_PARAMETERS): Promise<string> {
  const key = `${parameters.N}$${parameters.r}$${parameters.p}`;
  let hash = dummyHashes.get(key);
  if (!hash) {
    hash = hashPassword(randomBytes(16).toString('hex'), parameters);
    dummyHashes.set(key, hash);
  }
  return hash;
}
