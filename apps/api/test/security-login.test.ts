import { hashPassword, ManualClock, SCRYPT_PARAMETERS } from '@statehouse/state';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiHarness, bearer, bootApi, TEST_DIALECTS } from './harness.js';

/**
 * Replays the login attacks of the security review (docs/security.md, "Login throttling"):
 * parallel bursts that used to beat a read-then-write counter, a username spray from one address,
 * and the fixed 15-minute wall that locked the admin out. The clock is frozen, so a delay never
 * elapses by accident while a burst is in flight; the tests move it on purpose.
 */

const PASSWORD = 'correct horse battery';
// From docs/security.md: free failures before delays begin, and the longest delay.
const ACCOUNT_FREE_FAILURES = 5;
const ADDRESS_FREE_FAILURES = 10;
const MAX_DELAY_SECONDS = 300;

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`login throttling on ${dialect}`, () => {
    let api: ApiHarness;
    const clock = new ManualClock(Date.UTC(2026, 5, 1));

    const createUser = async (username: string, role: 'admin' | 'member' = 'member') =>
      api
        .http()
        .post('/v1/users')
        .set(bearer(api.adminToken))
        .send({ username, password: PASSWORD, role, profiles: role === 'admin' ? '*' : ['alpha'] })
        .expect(201);

    /** A login as the browser at `address` would make it through a trusted proxy (the dashboard). */
    const login = (username: string, password: string, address?: string) => {
      const call = api.http().post('/v1/auth/login');
      if (address) call.set('X-Forwarded-For', address);
      return call.send({ username, password });
    };

    /** Signs `username` in from its own address and returns the session cookie. */
    const signedIn = async (username: string) => {
      const response = await login(username, PASSWORD, '198.51.100.77');
      expect(response.status).toBe(204);
      const cookies = response.headers['set-cookie'] as unknown as string[];
      return cookies.find((cookie) => cookie.startsWith('statehouse_session='))!.split(';')[0];
    };

    const statuses = (responses: { status: number }[]) => {
      const counts: Record<number, number> = {};
      for (const response of responses) counts[response.status] = (counts[response.status] ?? 0) + 1;
      return counts;
    };

    beforeAll(async () => {
      api = await bootApi(dialect, {}, { clock });
      for (const name of ['burst', 'burst2', 'boss', 'victim', 'pairs', 'pairs-pw']) {
        await createUser(name, name === 'boss' ? 'admin' : 'member');
      }
    });
    afterAll(async () => api?.close());

    it('100 parallel wrong passwords: the attempts are reserved before the password check, so the burst is throttled', async () => {
      const responses = await Promise.all(
        Array.from({ length: 100 }, () => login('burst', 'wrong password', '203.0.113.10')),
      );
      const counted = statuses(responses);
      expect(counted[401]).toBe(ACCOUNT_FREE_FAILURES);
      expect(counted[429]).toBe(100 - ACCOUNT_FREE_FAILURES);
      const throttled = responses.find((response) => response.status === 429)!;
      expect(throttled.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(throttled.body.code).toBe('rate_limited');
      expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    });

    it('200 parallel guesses with the right password among them: it does not get in while throttled', async () => {
      const wrong = Array.from({ length: 199 }, (_, index) => login('burst2', `guess ${index}`, '203.0.113.11'));
      // The first answer means the budget was spent (a 429) or a password check finished (a 401),
      // so every free attempt is already reserved: the right password now arrives mid-burst.
      await Promise.race(wrong);
      const right = await login('burst2', PASSWORD, '203.0.113.11');
      const responses = [...(await Promise.all(wrong)), right];
      expect(right.status).toBe(429);
      expect(statuses(responses)[204]).toBeUndefined();
      expect(statuses(responses)[401]).toBe(ACCOUNT_FREE_FAILURES);
      // A delay, not a wall: once it passes, the right password works.
      clock.advance(Number(right.headers['retry-after']) * 1000);
      expect((await login('burst2', PASSWORD, '203.0.113.11')).status).toBe(204);
    });

    it('a spray of 60 usernames from one address is throttled by the address limit, loopback included', async () => {
      for (const address of ['198.18.0.7', undefined]) {
        const responses = await Promise.all(
          Array.from({ length: 60 }, (_, index) => login(`sprayed-${index}`, 'Winter2026!', address)),
        );
        const counted = statuses(responses);
        expect(counted[401]).toBe(ADDRESS_FREE_FAILURES);
        expect(counted[429]).toBe(60 - ADDRESS_FREE_FAILURES);
        // Sequential guessing from that address keeps hitting the limit too.
        expect((await login('sprayed-late', 'Winter2026!', address)).status).toBe(429);
      }
    });

    it('the admin is not locked out by a fixed wall: a known address signs in at once, a new one after a bounded delay', async () => {
      expect((await login('boss', PASSWORD, '198.51.100.1')).status).toBe(204);
      // An attacker guesses from rotating addresses, faster than the delays allow.
      for (let index = 0; index < 40; index++) {
        await login('boss', `guess ${index}`, `203.0.113.${100 + index}`);
        clock.advance(1_000);
      }
      const fromAttacker = await login('boss', 'one more guess', '203.0.113.200');
      expect(fromAttacker.status).toBe(429);
      expect(Number(fromAttacker.headers['retry-after'])).toBeLessThanOrEqual(MAX_DELAY_SECONDS);
      // The admin's own address is judged by its own failures, not the attacker's.
      expect((await login('boss', PASSWORD, '198.51.100.1')).status).toBe(204);
      // From an address never used before, the account-wide delay applies — bounded, not 15 minutes.
      const fromNewPlace = await login('boss', PASSWORD, '198.51.100.2');
      expect(fromNewPlace.status).toBe(429);
      const wait = Number(fromNewPlace.headers['retry-after']);
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(MAX_DELAY_SECONDS);
      clock.advance(wait * 1000);
      expect((await login('boss', PASSWORD, '198.51.100.2')).status).toBe(204);
    });

    it("a success never resets another address's count", async () => {
      expect((await login('victim', PASSWORD, '198.51.100.20')).status).toBe(204);
      for (let index = 0; index < ACCOUNT_FREE_FAILURES; index++) {
        expect((await login('victim', `guess ${index}`, '203.0.113.50')).status).toBe(401);
      }
      expect((await login('victim', 'guess 6', '203.0.113.50')).status).toBe(429);
      // The real user signs in from their own address…
      expect((await login('victim', PASSWORD, '198.51.100.20')).status).toBe(204);
      // …and the attacker's budget is still spent.
      expect((await login('victim', 'guess 7', '203.0.113.50')).status).toBe(429);
    });

    it("a sprayer's own successful sign-in does not clear its address's failures against other accounts", async () => {
      await createUser('spray-own');
      const address = '198.18.5.5';
      for (let index = 0; index < ADDRESS_FREE_FAILURES - 1; index++) {
        expect((await login(`spray-victim-${index}`, 'Winter2026!', address)).status).toBe(401);
      }
      // The attacker signs in to an account of its own from the spraying address…
      expect((await login('spray-own', PASSWORD, address)).status).toBe(204);
      // …and its budget is still the one it spent: one free failure left, then the limit.
      expect((await login('spray-victim-last', 'Winter2026!', address)).status).toBe(401);
      expect((await login('spray-victim-more', 'Winter2026!', address)).status).toBe(429);
    });

    it('throttles the current-password check of a password change like a login (a stolen session is no oracle)', async () => {
      const cookie = await signedIn('pairs-pw');
      const statusesSeen: number[] = [];
      for (let index = 0; index < ACCOUNT_FREE_FAILURES + 2; index++) {
        const response = await api
          .http()
          .post('/v1/auth/password')
          .set({ Cookie: cookie, 'Sec-Fetch-Site': 'same-origin', 'X-Forwarded-For': '198.51.100.77' })
          .send({ currentPassword: `guess ${index}`, newPassword: 'a brand new password' });
        statusesSeen.push(response.status);
      }
      expect(statusesSeen.slice(0, ACCOUNT_FREE_FAILURES)).toEqual(Array(ACCOUNT_FREE_FAILURES).fill(401));
      expect(statusesSeen.slice(ACCOUNT_FREE_FAILURES)).toEqual([429, 429]);
    });

    it('delays grow with each failure and are capped', async () => {
      const waits: number[] = [];
      for (let index = 0; index < ACCOUNT_FREE_FAILURES + 12; index++) {
        const response = await login('pairs', `guess ${index}`, `192.0.2.${index + 1}`);
        if (response.status === 429) {
          const wait = Number(response.headers['retry-after']);
          waits.push(wait);
          clock.advance(wait * 1000);
          expect((await login('pairs', `guess ${index}`, `192.0.2.${index + 1}`)).status).toBe(401);
        } else {
          expect(response.status).toBe(401);
        }
      }
      expect(waits.length).toBeGreaterThan(5);
      for (let index = 1; index < waits.length; index++) expect(waits[index]).toBeGreaterThanOrEqual(waits[index - 1]);
      expect(waits.at(-1)).toBe(MAX_DELAY_SECONDS);
    });
  });

  describe.skipIf(!available)(`client addresses on ${dialect}`, () => {
    let api: ApiHarness;

    beforeAll(async () => {
      // The API's only trusted proxy is elsewhere: X-Forwarded-For from this test client is not believed.
      api = await bootApi(dialect, { STATEHOUSE_TRUSTED_PROXIES: '10.9.8.7' }, { clock: new ManualClock() });
    });
    afterAll(async () => api?.close());

    it('ignores X-Forwarded-For from an untrusted peer, so rotating it does not escape the address limit', async () => {
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          api
            .http()
            .post('/v1/auth/login')
            .set('X-Forwarded-For', `203.0.113.${index}`)
            .send({ username: `rotating-${index}`, password: 'x' }),
        ),
      );
      expect(responses.filter((response) => response.status === 401)).toHaveLength(ADDRESS_FREE_FAILURES);
    });

    it('refuses a login posted by another site in a browser (login CSRF)', async () => {
      for (const site of ['cross-site', 'same-site']) {
        const response = await api
          .http()
          .post('/v1/auth/login')
          .set('Sec-Fetch-Site', site)
          .send({ username: 'admin', password: 'x' });
        expect(response.status).toBe(403);
        expect(response.body.code).toBe('forbidden');
      }
    });
  });

  describe.skipIf(!available)(`password hashing on ${dialect}`, () => {
    let api: ApiHarness;

    const storedHash = async (username: string) =>
      (
        await api.store.db
          .selectFrom('users')
          .select('password_hash')
          .where('username', '=', username)
          .executeTakeFirstOrThrow()
      ).password_hash;

    beforeAll(async () => {
      // The production parameters, as start-up uses them (test stores default to cheaper ones).
      api = await bootApi(dialect, {}, { passwordHashing: SCRYPT_PARAMETERS });
    });
    afterAll(async () => api?.close());

    it('[security.dashboard-sessions] hashes new passwords with scrypt N = 2^17, r = 8, p = 1, parameters stored with the hash', async () => {
      expect(SCRYPT_PARAMETERS).toEqual({ N: 2 ** 17, r: 8, p: 1 });
      await api
        .http()
        .post('/v1/users')
        .set(bearer(api.adminToken))
        .send({ username: 'fresh', password: PASSWORD, role: 'member', profiles: [] })
        .expect(201);
      expect(await storedHash('fresh')).toMatch(/^scrypt\$131072\$8\$1\$[\w-]{22}\$[\w-]{86}$/);
    });

    it('upgrades an old hash at the next successful login, and only then', async () => {
      await api
        .http()
        .post('/v1/users')
        .set(bearer(api.adminToken))
        .send({ username: 'veteran', password: PASSWORD, role: 'member', profiles: [] })
        .expect(201);
      // A hash as the previous release made it (N = 2^15).
      const old = await hashPassword(PASSWORD, { N: 2 ** 15, r: 8, p: 1 });
      await api.store.db.updateTable('users').set({ password_hash: old }).where('username', '=', 'veteran').execute();

      expect((await api.http().post('/v1/auth/login').send({ username: 'veteran', password: 'wrong' })).status).toBe(
        401,
      );
      expect(await storedHash('veteran')).toBe(old);

      expect((await api.http().post('/v1/auth/login').send({ username: 'veteran', password: PASSWORD })).status).toBe(
        204,
      );
      const upgraded = await storedHash('veteran');
      expect(upgraded).toMatch(/^scrypt\$131072\$8\$1\$/);
      expect((await api.http().post('/v1/auth/login').send({ username: 'veteran', password: PASSWORD })).status).toBe(
        204,
      );
      expect(await storedHash('veteran')).toBe(upgraded);
    });
  });
}
