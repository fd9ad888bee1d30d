import { SESSION_COOKIE_NAME } from '@statehouse/contracts';
import { describe, expect, it } from 'vitest';
import { bearer, TEST_DIALECTS, useApi } from './harness.js';

const PASSWORD = 'correct horse battery';

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`account and user administration API on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);

    const createUser = async (username: string, role: 'admin' | 'member', profiles: string[] | '*' = ['alpha']) => {
      const response = await api
        .http()
        .post('/v1/users')
        .set(admin)
        .send({ username, password: PASSWORD, role, profiles });
      expect(response.status).toBe(201);
      return response.body as { id: string };
    };
    /** Signs in and answers the `name=value` cookie pair. */
    const signIn = (username: string, userAgent = 'test-agent/1.0') =>
      api.signIn(username, PASSWORD, { 'User-Agent': userAgent });

    /** Ends a dashboard session (DELETE /v1/auth/sessions/:id) as a browser on the dashboard's origin. */
    const endSession = (id: string, cookie: string) =>
      api.http().delete(`/v1/auth/sessions/${id}`).set('Cookie', cookie).set('Sec-Fetch-Site', 'same-origin');

    it('[security.dashboard-sessions] lists the caller’s dashboard sessions without secrets, marks the current one, and ends one', async () => {
      await createUser('fran', 'member');
      const laptop = await signIn('fran', 'Laptop Browser');
      const phone = await signIn('fran', 'Phone Browser');
      const listed = await api.http().get('/v1/auth/sessions').set('Cookie', laptop);
      expect(listed.status).toBe(200);
      expect(listed.body).toHaveLength(2);
      const secret = laptop.split('=')[1];
      expect(JSON.stringify(listed.body)).not.toContain(secret);
      expect(JSON.stringify(listed.body)).not.toContain(phone.split('=')[1]);
      const current = listed.body.filter((s: { current: boolean }) => s.current);
      expect(current).toHaveLength(1);
      expect(current[0].userAgent).toBe('Laptop Browser');
      const other = listed.body.find((s: { current: boolean }) => !s.current);
      expect(other).toMatchObject({ userAgent: 'Phone Browser', current: false });
      expect(other.id).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Date.parse(other.expiresAt)).toBeGreaterThan(Date.parse(other.createdAt));

      // Ending the phone's session signs the phone out, not the laptop.
      expect((await endSession(other.id, laptop)).status).toBe(204);
      expect((await api.http().get('/v1/auth/me').set('Cookie', phone)).status).toBe(401);
      expect((await api.http().get('/v1/auth/me').set('Cookie', laptop)).status).toBe(200);
      // Ending it again, or someone else's, is a 404.
      expect((await endSession(other.id, laptop)).status).toBe(404);
      await createUser('gus', 'member');
      const gus = await signIn('gus');
      const gusSession = (await api.http().get('/v1/auth/sessions').set('Cookie', gus)).body[0];
      expect((await endSession(gusSession.id, laptop)).status).toBe(404);
      expect((await api.http().get('/v1/auth/me').set('Cookie', gus)).status).toBe(200);

      // Ending the current session clears the cookie and signs out.
      const own = current[0].id;
      const ended = await api
        .http()
        .delete(`/v1/auth/sessions/${own}`)
        .set('Cookie', laptop)
        .set('Sec-Fetch-Site', 'same-origin');
      expect(ended.status).toBe(204);
      expect(String(ended.headers['set-cookie'])).toContain(`${SESSION_COOKIE_NAME}=;`);
      expect((await api.http().get('/v1/auth/me').set('Cookie', laptop)).status).toBe(401);
      // A token has no dashboard sessions.
      expect((await api.http().get('/v1/auth/sessions').set(admin)).status).toBe(403);
    });

    it('changing the password signs out the other dashboard sessions and keeps this one; end-others does it on demand', async () => {
      await createUser('jon', 'member');
      const laptop = await signIn('jon', 'Laptop Browser');
      const phone = await signIn('jon', 'Phone Browser');
      const changed = await api
        .http()
        .post('/v1/auth/password')
        .set('Cookie', laptop)
        .set('Sec-Fetch-Site', 'same-origin')
        .send({ currentPassword: PASSWORD, newPassword: 'a brand new secret' });
      expect(changed.status).toBe(204);
      // Before: the phone (perhaps whoever knew the old password) stayed signed in.
      expect((await api.http().get('/v1/auth/me').set('Cookie', phone)).status).toBe(401);
      expect((await api.http().get('/v1/auth/me').set('Cookie', laptop)).status).toBe(200);
      expect((await api.http().get('/v1/auth/sessions').set('Cookie', laptop)).body).toHaveLength(1);

      // "Sign out everywhere else" on demand.
      const login = (userAgent: string) =>
        api
          .http()
          .post('/v1/auth/login')
          .set('User-Agent', userAgent)
          .send({ username: 'jon', password: 'a brand new secret' });
      const tablet = String((await login('Tablet')).headers['set-cookie']).split(';')[0];
      const desktop = String((await login('Desktop')).headers['set-cookie']).split(';')[0];
      const others = await api
        .http()
        .post('/v1/auth/sessions/end-others')
        .set('Cookie', tablet)
        .set('Sec-Fetch-Site', 'same-origin');
      expect(others.status).toBe(200);
      expect(others.body).toEqual({ ended: 2 });
      expect((await api.http().get('/v1/auth/me').set('Cookie', tablet)).status).toBe(200);
      expect((await api.http().get('/v1/auth/me').set('Cookie', desktop)).status).toBe(401);
      expect((await api.http().get('/v1/auth/me').set('Cookie', laptop)).status).toBe(401);
      // Cross-site it is refused like every cookie-authenticated mutation; a token has no sessions.
      expect(
        (
          await api
            .http()
            .post('/v1/auth/sessions/end-others')
            .set('Cookie', tablet)
            .set('Sec-Fetch-Site', 'cross-site')
        ).status,
      ).toBe(403);
      expect((await api.http().post('/v1/auth/sessions/end-others').set(admin)).status).toBe(403);
    });

    it('disables a user: their sessions end at once, they cannot sign in, and the list shows it', async () => {
      const hal = await createUser('hal', 'member', ['alpha', 'beta']);
      const cookie = await signIn('hal');
      let listed = (await api.http().get('/v1/users').set(admin)).body.find((u: { id: string }) => u.id === hal.id);
      expect(listed).toMatchObject({ disabled: false, disabledAt: null, activeSessions: 1 });
      expect(listed.lastLoginAt).not.toBeNull();

      const disabled = await api.http().patch(`/v1/users/${hal.id}`).set(admin).send({ disabled: true });
      expect(disabled.status).toBe(200);
      expect(disabled.body).toMatchObject({ disabled: true, activeSessions: 0 });
      expect((await api.http().get('/v1/auth/me').set('Cookie', cookie)).status).toBe(401);
      const login = await api.http().post('/v1/auth/login').send({ username: 'hal', password: PASSWORD });
      expect(login.status).toBe(401);
      expect(login.body.detail).toContain('disabled');
      // A wrong password never learns that the account is disabled.
      const wrong = await api.http().post('/v1/auth/login').send({ username: 'hal', password: 'not it at all' });
      expect(wrong.status).toBe(401);
      expect(wrong.body.detail).not.toContain('disabled');
      listed = (await api.http().get('/v1/users').set(admin)).body.find((u: { id: string }) => u.id === hal.id);
      expect(listed.disabled).toBe(true);

      const enabled = await api
        .http()
        .patch(`/v1/users/${hal.id}`)
        .set(admin)
        .send({ disabled: false, profiles: ['beta'] });
      expect(enabled.body).toMatchObject({ disabled: false, disabledAt: null, profiles: ['beta'] });
      const again = await signIn('hal');
      expect((await api.http().get('/v1/auth/me').set('Cookie', again)).body.profiles).toEqual(['beta']);
    });

    it('changes role and profiles, applied to signed-in sessions at once; members are refused', async () => {
      const ida = await createUser('ida', 'member', ['alpha']);
      const cookie = await signIn('ida');
      const promoted = await api.http().patch(`/v1/users/${ida.id}`).set(admin).send({ role: 'admin', profiles: '*' });
      expect(promoted.body).toMatchObject({ role: 'admin', profiles: '*' });
      expect((await api.http().get('/v1/auth/me').set('Cookie', cookie)).body).toMatchObject({
        role: 'admin',
        profiles: '*',
      });
      const member = bearer(await api.memberToken(['alpha']));
      expect((await api.http().patch(`/v1/users/${ida.id}`).set(member).send({ disabled: true })).status).toBe(403);
      expect((await api.http().patch('/v1/users/no-such-user').set(admin).send({ disabled: true })).status).toBe(404);
      expect((await api.http().patch(`/v1/users/${ida.id}`).set(admin).send({})).status).toBe(400);
      expect((await api.http().patch(`/v1/users/${ida.id}`).set(admin).send({ password: 'x' })).status).toBe(400);
      expect((await api.http().patch(`/v1/users/${ida.id}`).set(admin).send({ role: 'owner' })).status).toBe(400);
    });

    it('never disables or demotes the last active admin (409), from a token or from that admin', async () => {
      // ida (promoted above) is the only active admin user.
      const users = (await api.http().get('/v1/users').set(admin)).body as { id: string; username: string }[];
      const ida = users.find((u) => u.username === 'ida')!;
      const demote = await api.http().patch(`/v1/users/${ida.id}`).set(admin).send({ role: 'member' });
      expect(demote.status).toBe(409);
      expect(demote.body.detail).toContain('last active admin');
      const cookie = await signIn('ida');
      const self = await api
        .http()
        .patch(`/v1/users/${ida.id}`)
        .set('Cookie', cookie)
        .set('Sec-Fetch-Site', 'same-origin')
        .send({ disabled: true });
      expect(self.status).toBe(409);
      // With a second admin, the first may go; then the second is the last one.
      const jo = await createUser('jo', 'admin', '*');
      expect((await api.http().patch(`/v1/users/${ida.id}`).set(admin).send({ disabled: true })).status).toBe(200);
      expect((await api.http().patch(`/v1/users/${jo.id}`).set(admin).send({ role: 'member' })).status).toBe(409);
      // A disabled admin does not count as active: enabling ida makes jo demotable.
      expect((await api.http().patch(`/v1/users/${ida.id}`).set(admin).send({ disabled: false })).status).toBe(200);
      expect((await api.http().patch(`/v1/users/${jo.id}`).set(admin).send({ role: 'member' })).status).toBe(200);
    });

    it('serialises two admins disabling each other at once: one of them stays', async () => {
      const users = (await api.http().get('/v1/users').set(admin)).body as { id: string; username: string }[];
      const ida = users.find((u) => u.username === 'ida')!;
      const kim = await createUser('kim', 'admin', '*');
      const results = await Promise.all(
        [ida.id, kim.id].map((id) => api.http().patch(`/v1/users/${id}`).set(admin).send({ disabled: true })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const after = (await api.http().get('/v1/users').set(admin)).body as { role: string; disabled: boolean }[];
      expect(after.filter((u) => u.role === 'admin' && !u.disabled)).toHaveLength(1);
    });

    it('lists tokens with what an admin page needs and never their secrets', async () => {
      const created = await api
        .http()
        .post('/v1/tokens')
        .set(admin)
        .send({ name: 'ci-bot', role: 'member', profiles: ['alpha'] });
      await api.http().get('/v1/auth/me').set(bearer(created.body.token)).expect(200);
      await api.http().delete(`/v1/tokens/${created.body.id}`).set(admin).expect(204);
      const listed = (await api.http().get('/v1/tokens').set(admin)).body as Record<string, unknown>[];
      const row = listed.find((token) => token.id === created.body.id)!;
      expect(Object.keys(row).sort()).toEqual(
        ['createdAt', 'id', 'lastUsedAt', 'name', 'profiles', 'revokedAt', 'role'].sort(),
      );
      expect(row).toMatchObject({ name: 'ci-bot', role: 'member', profiles: ['alpha'] });
      expect(row.lastUsedAt).not.toBeNull();
      expect(row.revokedAt).not.toBeNull();
      expect(JSON.stringify(listed)).not.toContain(created.body.token);
    });
  });
}
