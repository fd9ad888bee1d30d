import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROBLEM_CODES, PROBLEM_REGISTRY } from '@statehouse/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../src/openapi/openapi.js';
import { type ApiHarness, bearer, bootApi } from './harness.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function sources(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry === '.next') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files.push(...sources(path));
    else if (/\.(ts|tsx)$/.test(entry) && !/\.test\.tsx?$/.test(entry)) files.push(path);
  }
  return files;
}

/** Every string the code hands out (or compares) as a problem `code`. */
function codesUsedInSources(): Map<string, string> {
  const patterns = [
    /(?:super|new DomainError)\(\s*'([a-z_]+)'/g,
    /\bcode(?::|\s*===|\s*!==)\s*'([a-z_]+)'/g,
    /\b\d{3}: '([a-z_]+)'/g,
    /this\.build\(\s*'([a-z_]+)'/g,
  ];
  const used = new Map<string, string>();
  for (const dir of ['libs/state/src', 'apps/api/src', 'apps/web']) {
    for (const file of sources(join(ROOT, dir))) {
      const text = readFileSync(file, 'utf8');
      for (const pattern of patterns) {
        for (const match of text.matchAll(pattern)) used.set(match[1], file.slice(ROOT.length + 1));
      }
    }
  }
  return used;
}

describe('problem codes are documented in one registry', () => {
  let api: ApiHarness;

  beforeAll(async () => {
    api = await bootApi('sqlite');
  });
  afterAll(async () => api?.close());

  it('every code the code base uses is in the registry, with a status, a title and a description', () => {
    const used = codesUsedInSources();
    expect(used.size).toBeGreaterThan(10);
    for (const [code, file] of used) {
      expect(PROBLEM_CODES as readonly string[], `${code} (used in ${file}) is not in the problem registry`).toContain(
        code,
      );
    }
    for (const code of PROBLEM_CODES) {
      const entry = PROBLEM_REGISTRY[code];
      expect(entry.status).toBeGreaterThanOrEqual(400);
      expect(entry.title.length).toBeGreaterThan(0);
      expect(entry.description.length).toBeGreaterThan(20);
    }
    // The two that once went undocumented.
    expect(PROBLEM_REGISTRY.conflict.status).toBe(409);
    expect(PROBLEM_REGISTRY.internal_error.status).toBe(500);
  });

  it('docs/api.md lists exactly the registry, with the same statuses', () => {
    const text = readFileSync(join(ROOT, 'docs', 'api.md'), 'utf8');
    const rows = [...text.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((match) => [match[1], Number(match[2])]);
    expect(Object.fromEntries(rows)).toEqual(
      Object.fromEntries(PROBLEM_CODES.map((code) => [code, PROBLEM_REGISTRY[code].status])),
    );
  });

  it('the OpenAPI document enumerates every code with its meaning, and every operation answers the problem schema', () => {
    const document = buildOpenApiDocument(api.app) as unknown as {
      components: { schemas: Record<string, { properties: { code: { enum: string[]; description: string } } }> };
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const problem = document.components.schemas.Problem;
    expect(problem.properties.code.enum).toEqual([...PROBLEM_CODES]);
    for (const code of PROBLEM_CODES) expect(problem.properties.code.description).toContain(`\`${code}\``);
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        expect(operation.responses.default, `${method} ${path}`).toEqual({ $ref: '#/components/responses/Problem' });
      }
    }
  });

  it('answers conflict with its registered status and title', async () => {
    const admin = bearer(api.adminToken);
    await api.http().post('/v1/sessions').set(admin).send({ id: 'dup', profile: 'p', source: 'cli' }).expect(201);
    const duplicate = await api.http().post('/v1/sessions').set(admin).send({ id: 'dup', profile: 'p', source: 'cli' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ code: 'conflict', title: PROBLEM_REGISTRY.conflict.title });
  });
});

describe('the repository explains itself', () => {
  it('docs/domain.md keeps the section numbers code comments cite', () => {
    const text = readFileSync(join(ROOT, 'docs', 'domain.md'), 'utf8');
    const headings = [...text.matchAll(/^##+ (\d+(?:\.\d+)?)\.? /gm)].map((match) => match[1]);
    for (const section of ['1', '2', '2.1', '2.2', '2.3', '2.4', '2.5', '2.6', '3', '4', '5', '5.1', '5.2', '5.3']) {
      expect(headings).toContain(section);
    }
    for (const section of ['6', '7', '8', '9', '10', '11']) expect(headings).toContain(section);
    // Every "docs/domain.md §N" a source file cites names a numbered rule or section that exists.
    const numbered = new Set([...headings, ...[...text.matchAll(/^(\d+(?:\.\d+)+)\. /gm)].map((match) => match[1])]);
    for (const dir of [
      'libs/state/src',
      'libs/contracts/src',
      'apps/api/src',
      'apps/web/app',
      'apps/web/lib',
      'bench',
    ]) {
      for (const file of sources(join(ROOT, dir))) {
        for (const match of readFileSync(file, 'utf8').matchAll(/docs\/domain\.md §(\d+(?:\.\d+)*)/g)) {
          expect(numbered, `${file.slice(ROOT.length + 1)} cites §${match[1]}`).toContain(match[1]);
        }
      }
    }
  });

  it('cites no document outside the repository', () => {
    // Readers of the repository have docs/, not the design notes it was built from.
    const outside = ['SPEC §', 'SPEC.md', 'PERFORMANCE.md', 'HERMES-STATE.md', '/work/shared', '(API.md', ' API.md'];
    const offenders: string[] = [];
    for (const dir of ['libs', 'apps/api', 'apps/web/app', 'apps/web/lib', 'bench', 'test', 'examples', 'docs']) {
      for (const file of everyFile(join(ROOT, dir))) {
        if (file.endsWith('problems.test.ts')) continue;
        const text = readFileSync(file, 'utf8');
        for (const phrase of outside)
          if (text.includes(phrase)) offenders.push(`${file.slice(ROOT.length + 1)}: ${phrase}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});

function everyFile(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry === '.next' || entry === 'images') continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) files.push(...everyFile(path));
    else if (/\.(ts|tsx|mjs|js|md|css)$/.test(entry)) files.push(path);
  }
  return files;
}
