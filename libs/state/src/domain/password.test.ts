import { describe, expect, it } from 'vitest';
import { dummyPasswordHash, hashPassword, needsRehash, SCRYPT_PARAMETERS, verifyPassword } from './password.js';

const CHEAP = { N: 2 ** 12, r: 8, p: 1 };

describe('password hashes', () => {
  it('verifies with the parameters stored in the hash, whatever today’s are', async () => {
    const hash = await hashPassword('open sesame', CHEAP);
    expect(hash.startsWith('scrypt$4096$8$1$')).toBe(true);
    expect(await verifyPassword('open sesame', hash)).toBe(true);
    expect(await verifyPassword('open sesame!', hash)).toBe(false);
  });

  it('asks for a rehash when any parameter is below the current ones', async () => {
    const hash = await hashPassword('x', CHEAP);
    expect(needsRehash(hash)).toBe(true);
    expect(needsRehash(hash, CHEAP)).toBe(false);
    expect(needsRehash(hash, { ...CHEAP, r: 16 })).toBe(true);
    expect(needsRehash('not a hash')).toBe(true);
    expect(SCRYPT_PARAMETERS.N).toBeGreaterThanOrEqual(2 ** 17);
  });

  it('treats a malformed or tampered hash as not matching instead of throwing or exhausting memory', async () => {
    const hash = await hashPassword('x', CHEAP);
    const [, , r, p, salt, key] = hash.split('$');
    for (const tampered of [
      `scrypt$${2 ** 30}$${r}$${p}$${salt}$${key}`,
      `scrypt$4095$${r}$${p}$${salt}$${key}`,
      `scrypt$4096$0$${p}$${salt}$${key}`,
      `scrypt$4096$${r}$1000$${salt}$${key}`,
      `scrypt$4096$${r}$${p}$${salt}$`,
      `bcrypt$4096$${r}$${p}$${salt}$${key}`,
      `${hash}$extra`,
      '',
    ]) {
      expect(await verifyPassword('x', tampered)).toBe(false);
    }
  });

  it('keeps one dummy hash per parameter set, so unknown users cost the same as known ones', async () => {
    const first = await dummyPasswordHash(CHEAP);
    expect(await dummyPasswordHash(CHEAP)).toBe(first);
    expect(first.startsWith('scrypt$4096$')).toBe(true);
  });
});
