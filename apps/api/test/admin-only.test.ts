import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, useApi } from './harness.js';

interface Operation {
  security?: Record<string, string[]>[];
  'x-admin-only'?: boolean;
}
const document = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};

/** Admin-only operations of the committed document that need credentials (metrics applies its rule itself). */
const ADMIN_ONLY = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(
      ([, operation]) => operation['x-admin-only'] && !operation.security?.some((entry) => !Object.keys(entry).length),
    )
    .map(([method]) => ({ method, path })),
);

describe('admin-only operations', () => {
  const { api } = useApi('sqlite');
  let member: Record<string, string>;

  beforeAll(async () => {
    member = bearer(await api.memberToken(['alpha']));
  });

  it('answer a member 403 forbidden before reading the request, as the document declares (@AdminOnly)', async () => {
    expect(ADMIN_ONLY.length).toBeGreaterThan(25);
    for (const { method, path } of ADMIN_ONLY) {
      // An invalid body and made-up ids: refused for the role before any of it is read.
      const url = path.replaceAll(/\{\w+\}/g, 'x');
      const call = api.http()[method as 'get'](url).set(member);
      const response = method === 'get' ? await call : await call.send({ unexpected: true });
      expect(`${method} ${path} → ${response.status} ${response.body.code}`).toBe(`${method} ${path} → 403 forbidden`);
    }
  });
});
