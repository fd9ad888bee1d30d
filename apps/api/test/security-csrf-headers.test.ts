import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, useApi } from './harness.js';

/**
 * CSRF and security headers (docs/security.md). A cookie-authenticated mutation is accepted only
 * from the same origin: `Sec-Fetch-Site: same-origin`, or — when a client sends no fetch metadata —
 * an `Origin` equal to the API's own origin (as a trusted proxy such as the dashboard reports it).
 * Bearer calls carry no ambient credential and are unaffected.
 */

type Headers = Record<string, string>;

const FOREIGN = 'https://evil.example';

/** Each way a browser on another site (or an old client) might send the request, refused. */
const REFUSED: [string, Headers][] = [
  ['Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site' }],
  ['Sec-Fetch-Site: same-site (a sibling subdomain)', { 'Sec-Fetch-Site': 'same-site', Origin: FOREIGN }],
  ['Sec-Fetch-Site: none', { 'Sec-Fetch-Site': 'none' }],
  ['neither Sec-Fetch-Site nor Origin', {}],
  ['a foreign Origin without Sec-Fetch-Site', { Origin: FOREIGN }],
  ['Origin: null', { Origin: 'null' }],
];

for (const { dialect, available } of TEST_DIALECTS) {
  describe.skipIf(!available)(`CSRF matrix and security headers on ${dialect}`, () => {
    const { api, admin } = useApi(dialect);
    let host: string;
    /** One dashboard session for the refusals: a refused request must leave it working. */
    let cookie: string;

    const signIn = () => api.signIn('casey', 'correct horse battery');

    beforeAll(async () => {
      await api
        .http()
        .post('/v1/users')
        .set(admin)
        .send({ username: 'casey', password: 'correct horse battery', role: 'admin', profiles: '*' })
        .expect(201);
      host = new URL(await api.listening()).host;
      cookie = await signIn();
    });

    const createSession = (cookie: string | null, headers: Headers) => {
      const call = api.http().post('/v1/sessions').set(headers);
      if (cookie) call.set('Cookie', cookie);
      return call.send({ profile: 'alpha', source: 'cli' });
    };

    for (const [name, headers] of REFUSED) {
      it(`refuses a cookie-authenticated API mutation with ${name}`, async () => {
        const response = await createSession(cookie, headers);
        expect(response.status).toBe(403);
        expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(response.body.code).toBe('forbidden');
      });

      it(`refuses a cookie-authenticated logout with ${name}, and the session stays valid`, async () => {
        const response = await api.http().post('/v1/auth/logout').set(headers).set('Cookie', cookie);
        expect(response.status).toBe(403);
        expect((await api.http().get('/v1/auth/me').set('Cookie', cookie)).status).toBe(200);
      });
    }

    it('accepts a cookie-authenticated mutation from the same origin', async () => {
      const cookie = await signIn();
      expect((await createSession(cookie, { 'Sec-Fetch-Site': 'same-origin' })).status).toBe(201);
      expect((await createSession(cookie, { Origin: `http://${host}` })).status).toBe(201);
      // The dashboard relays the browser's request: it is a trusted proxy (loopback) that reports
      // the origin the browser saw, and forwards that browser's Origin.
      expect(
        (
          await createSession(cookie, {
            Origin: 'https://dashboard.example',
            'X-Forwarded-Host': 'dashboard.example',
            'X-Forwarded-Proto': 'https',
          })
        ).status,
      ).toBe(201);
      const logout = await api
        .http()
        .post('/v1/auth/logout')
        .set('Cookie', cookie)
        .set('Sec-Fetch-Site', 'same-origin');
      expect(logout.status).toBe(204);
      expect((await api.http().get('/v1/auth/me').set('Cookie', cookie)).status).toBe(401);
    });

    it('lets a read-only POST (delete preview) through without same-origin proof: it changes nothing', async () => {
      const response = await api
        .http()
        .post('/v1/sessions/delete-preview')
        .set('Cookie', cookie)
        .send({ ids: ['nothing-here'] });
      expect(response.status).toBe(200);
      expect(response.body.missingIds).toEqual(['nothing-here']);
    });

    it('lets a dry run through without same-origin proof, but not the real call', async () => {
      await api.http().post('/v1/profiles').set(admin).send({ name: 'csrf-target' }).expect(201);
      const dryRun = await api.http().delete('/v1/profiles/csrf-target?dryRun=true').set('Cookie', cookie);
      expect(dryRun.status).toBe(200);
      expect(dryRun.body.dryRun).toBe(true);
      for (const query of ['', '?dryRun=false', '?dryRun=yes', '?dryRun=true&dryRun=true']) {
        const real = await api.http().delete(`/v1/profiles/csrf-target${query}`).set('Cookie', cookie);
        expect(real.status, query).toBe(403);
      }
      expect((await api.http().get('/v1/profiles').set(admin)).body.map((p: { name: string }) => p.name)).toContain(
        'csrf-target',
      );
    });

    it('leaves bearer calls unaffected by fetch metadata and Origin', async () => {
      for (const [, headers] of REFUSED) {
        expect((await createSession(null, { ...admin, ...headers })).status).toBe(201);
      }
      expect((await api.http().post('/v1/auth/logout').set(admin).set('Sec-Fetch-Site', 'cross-site')).status).toBe(
        204,
      );
    });

    it('sends nosniff, frame denial, a referrer policy and a restrictive CSP on every API response', async () => {
      for (const response of [
        await api.http().get('/healthz'),
        await api.http().get('/v1/sessions').set(admin),
        await api.http().get('/v1/sessions/missing').set(admin),
        await api.http().get('/docs/'),
      ]) {
        expect(response.headers['x-content-type-options']).toBe('nosniff');
        expect(response.headers['x-frame-options']).toBe('DENY');
        expect(response.headers['referrer-policy']).toBe('no-referrer');
        expect(response.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
        expect(response.headers['content-security-policy']).toMatch(/object-src 'none'/);
        expect(response.headers['x-powered-by']).toBeUndefined();
      }
    });

    it('marks authenticated responses Cache-Control: no-store', async () => {
      for (const response of [
        await api.http().get('/v1/sessions').set(admin),
        await api.http().get('/v1/auth/me').set('Cookie', cookie),
        await api.http().get('/v1/deletion-receipts').set(admin),
        await api.http().get('/v1/sessions/missing').set(admin),
      ]) {
        expect(response.headers['cache-control']).toBe('no-store');
      }
    });
  });
}
