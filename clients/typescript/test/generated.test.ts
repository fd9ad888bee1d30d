import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  PROBLEM_CODE_BY_STATUS as CONTRACT_CODE_BY_STATUS,
  PROBLEM_CODES as CONTRACT_CODES,
} from '@statehouse/contracts';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script without types
import { DOCUMENT_PATH, GENERATED_DIR, generate } from '../scripts/generate.mjs';
import { PROBLEM_CODE_BY_STATUS, PROBLEM_CODES } from '../src/index.js';
import { PAGINATED_LISTS } from './support/paginated.js';

const document = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8'));

describe('the generated layer of @statehouse/client', () => {
  it('matches apps/api/openapi.json: a changed document without `npm run client:generate` fails here', async () => {
    const files: Record<string, string> = await generate(readFileSync(DOCUMENT_PATH, 'utf8'));
    for (const [name, content] of Object.entries(files)) {
      expect(readFileSync(join(GENERATED_DIR, name), 'utf8'), `src/generated/${name} drifted`).toBe(content);
    }
  });

  it('a document that changes one answer changes the generated types (the check is not vacuous)', async () => {
    const changed = structuredClone(document);
    changed.info.description = `${changed.info.description} (changed)`;
    changed.paths['/healthz'].get.summary = 'Changed summary';
    const files: Record<string, string> = await generate(JSON.stringify(changed, null, 2));
    expect(files['openapi.ts']).toContain('Changed summary');
    expect(files['openapi.ts']).not.toBe(readFileSync(join(GENERATED_DIR, 'openapi.ts'), 'utf8'));
  });

  it('knows every problem code of the registry (libs/contracts), and infers the same code per status', () => {
    expect([...PROBLEM_CODES].sort()).toEqual([...CONTRACT_CODES].sort());
    expect(PROBLEM_CODE_BY_STATUS).toEqual(CONTRACT_CODE_BY_STATUS);
  });

  it('every cursor-paginated list of the document has an iterator test', () => {
    type Operation = { responses?: Record<string, { content?: Record<string, { schema?: { properties?: object } }> }> };
    const paginated = Object.entries(document.paths as Record<string, { get?: Operation }>)
      .filter(([, operations]) => {
        const schema = operations.get?.responses?.['200']?.content?.['application/json']?.schema;
        const properties = schema?.properties ?? {};
        return 'items' in properties && 'nextCursor' in properties;
      })
      .map(([path]) => path)
      .sort();
    expect(paginated.length).toBeGreaterThanOrEqual(8);
    expect([...PAGINATED_LISTS].sort()).toEqual(paginated);
  });
});
