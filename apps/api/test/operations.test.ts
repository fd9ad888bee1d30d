import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument, serializeOpenApi } from '../src/openapi/openapi.js';
import { type ApiHarness, bearer, bootApi } from './harness.js';

describe('operations', () => {
  let api: ApiHarness;

  beforeAll(async () => {
    api = await bootApi('sqlite');
  });
  afterAll(async () => api?.close());

  it('[security.authentication] serves health without credentials and readiness from the store', async () => {
    expect((await api.http().get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await api.http().get('/readyz')).status).toBe(200);
  });

  it('serves Swagger UI at /docs and the OpenAPI document at /openapi.json', async () => {
    const docs = await api.http().get('/docs/');
    expect(docs.status).toBe(200);
    expect(docs.text).toContain('swagger');
    const document = await api.http().get('/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.paths['/v1/sessions'].post.requestBody).toBeDefined();
    expect(document.body.components.securitySchemes.bearer).toBeDefined();
  });

  it('keeps the committed OpenAPI document in step with the code (run `npm run openapi` after API changes)', () => {
    const committed = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'openapi.json'), 'utf8');
    expect(serializeOpenApi(buildOpenApiDocument(api.app))).toBe(committed);
  });

  it('exposes Prometheus metrics to loopback with request counts by route template', async () => {
    await api.http().get('/v1/sessions/some-id').set(bearer(api.adminToken));
    const metrics = await api.http().get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/text\/plain/);
    expect(metrics.text).toContain(
      'statehouse_http_requests_total{method="GET",route="/v1/sessions/:id",status="404"}',
    );
    expect(metrics.text).toContain('statehouse_http_request_duration_seconds_bucket');
    // The SQLite WAL checkpointer's failures are counted (they were swallowed).
    expect(metrics.text).toContain('statehouse_sqlite_checkpoint_failures_total 0');
    expect(metrics.text).toContain('statehouse_sqlite_checkpoint_failing 0');
  });

  it('answers unknown routes with a problem document and echoes request ids', async () => {
    const response = await api
      .http()
      .get('/v1/nothing-here')
      .set(bearer(api.adminToken))
      .set('X-Request-Id', 'req-123');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'not_found', requestId: 'req-123' });
    expect(response.headers['x-request-id']).toBe('req-123');
  });

  it('[storage.fail-closed] answers 503 store_unavailable with Retry-After when the store stops answering, and readiness says so', async () => {
    const broken = await bootApi('sqlite');
    try {
      const token = bearer(broken.adminToken);
      expect((await broken.http().get('/readyz')).status).toBe(200);
      await broken.store.db.destroy();
      const ready = await broken.http().get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.code).toBe('store_unavailable');
      const list = await broken.http().get('/v1/sessions').set(token);
      expect(list.status).toBe(503);
      expect(list.body.code).toBe('store_unavailable');
      expect(list.headers['retry-after']).toBe('1');
      expect((await broken.http().get('/healthz')).status).toBe(200);
    } finally {
      await broken.app.close();
    }
  });
});
