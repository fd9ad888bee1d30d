import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, sessionCookie, TEST_DIALECTS, useApi } from './harness.js';

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`auth API on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);

    beforeAll(async () => {
      const created = await api
        .http()
        .post('/v1/users')
        .set(admin)
        .send({ username: 'dana', password: 'correct horse battery', role: 'member', profiles: ['alpha'] });
      expect(created.status).toBe(201);
      expect(created.body.passwordHash).toBeUndefined();
    });

    it('[security.dashboard-sessions] logs in with an httpOnly SameSite=Strict cookie that authenticates, then logs out', async () => {
      const login = await api
        .http()
        .post('/v1/auth/login')
        .send({ username: 'dana', password: 'correct horse battery' });
      expect(login.status).toBe(204);
      const cookie = sessionCookie(login.headers['set-cookie']);
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Strict/i);
      expect(cookie).toMatch(/Expires=/i);
      const pair = cookie.split(';')[0];

      const me = await api.http().get('/v1/auth/me').set('Cookie', pair);
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ kind: 'user', name: 'dana', role: 'member', profiles: ['alpha'] });

      const crossSite = await api
        .http()
        .post('/v1/sessions')
        .set('Cookie', pair)
        .set('Sec-Fetch-Site', 'cross-site')
        .send({ profile: 'alpha', source: 'cli' });
      expect(crossSite.status).toBe(403);

      const logout = await api.http().post('/v1/auth/logout').set('Cookie', pair).set('Sec-Fetch-Site', 'same-origin');
      expect(logout.status).toBe(204);
      expect((await api.http().get('/v1/auth/me').set('Cookie', pair)).status).toBe(401);
    });

    it('[security.dashboard-sessions] refuses wrong passwords with 401 and rate-limits repeated failures with 429 + Retry-After', async () => {
      // From one browser address, as the dashboard reports it (a trusted proxy on loopback).
      const attempt = (username: string, password: string) =>
        api.http().post('/v1/auth/login').set('X-Forwarded-For', '203.0.113.9').send({ username, password });
      const wrong = await attempt('dana', 'nope');
      expect(wrong.status).toBe(401);
      const unknown = await attempt('ghost', 'nope');
      expect(unknown.status).toBe(401);
      expect(unknown.body.detail).toBe(wrong.body.detail);
      let last = wrong;
      for (let i = 0; i < 12; i++) last = await attempt('dana', 'nope');
      expect(last.status).toBe(429);
      expect(last.body.code).toBe('rate_limited');
      expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
      // Even the right password is refused while the limit holds.
      expect((await attempt('dana', 'correct horse battery')).status).toBe(429);
    });

    it('lets a user change their own password with the current one', async () => {
      await api
        .http()
        .post('/v1/users')
        .set(admin)
        .send({ username: 'erin', password: 'first password', role: 'member', profiles: [] })
        .expect(201);
      const login = await api.http().post('/v1/auth/login').send({ username: 'erin', password: 'first password' });
      const cookie = sessionCookie(login.headers['set-cookie']).split(';')[0];
      // A browser on the dashboard's own origin says so (docs/security.md, "CSRF").
      const sameOrigin = { Cookie: cookie, 'Sec-Fetch-Site': 'same-origin' };
      const wrong = await api
        .http()
        .post('/v1/auth/password')
        .set(sameOrigin)
        .send({ currentPassword: 'nope', newPassword: 'second password' });
      expect(wrong.status).toBe(401);
      await api
        .http()
        .post('/v1/auth/password')
        .set(sameOrigin)
        .send({ currentPassword: 'first password', newPassword: 'second password' })
        .expect(204);
      expect(
        (await api.http().post('/v1/auth/login').send({ username: 'erin', password: 'second password' })).status,
      ).toBe(204);
      expect(
        (
          await api
            .http()
            .post('/v1/auth/password')
            .set(admin)
            .send({ currentPassword: 'x', newPassword: 'y'.repeat(8) })
        ).status,
      ).toBe(403);
    });

    it('[security.authentication] issues tokens once, stores only hashes, and revokes them', async () => {
      const created = await api
        .http()
        .post('/v1/tokens')
        .set(admin)
        .send({ name: 'gateway', role: 'member', profiles: ['alpha'] });
      expect(created.status).toBe(201);
      expect(created.body.token).toMatch(/^sh_/);
      const listed = await api.http().get('/v1/tokens').set(admin);
      expect(JSON.stringify(listed.body)).not.toContain(created.body.token);
      const member = bearer(created.body.token);
      expect((await api.http().get('/v1/auth/me').set(member)).body).toMatchObject({ kind: 'token', role: 'member' });
      expect((await api.http().get('/v1/tokens').set(member)).status).toBe(403);
      expect(
        (await api.http().post('/v1/tokens').set(member).send({ name: 'x', role: 'admin', profiles: '*' })).status,
      ).toBe(403);
      expect((await api.http().post('/v1/profiles').set(member).send({ name: 'newprof' })).status).toBe(403);
      expect((await api.http().delete(`/v1/tokens/${created.body.id}`).set(admin)).status).toBe(204);
      expect((await api.http().get('/v1/auth/me').set(member)).status).toBe(401);
      expect((await api.http().delete(`/v1/tokens/${created.body.id}`).set(admin)).status).toBe(404);
    });

    it('lets an admin create a profile by naming it', async () => {
      const response = await api
        .http()
        .post('/v1/sessions')
        .set(admin)
        .send({ profile: 'fresh-profile', source: 'cli' });
      expect(response.status).toBe(201);
      const profiles = await api.http().get('/v1/profiles').set(admin);
      expect(profiles.body).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'fresh-profile', sessionCount: 1, messageCount: 0 })]),
      );
    });
  });
}
