import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROBLEM_CODES, PROBLEM_REGISTRY } from '@statehouse/contracts';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../src/openapi/openapi.js';
import { OTHER_STATUSES } from '../src/openapi/problem-scopes.js';
import { useApi } from './harness.js';

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
        for (const match of text.matchAll(pattern)) {
          // zod's own issue codes (`ctx.addIssue({ code: 'custom', … })` in the config schemas) are not problems.
          if (/addIssue\(\{\s*$/.test(text.slice(Math.max(0, (match.index ?? 0) - 40), match.index))) continue;
          used.set(match[1], file.slice(ROOT.length + 1));
        }
      }
    }
  }
  return used;
}

describe('problem codes are documented in one registry', () => {
  const { api, admin } = useApi('sqlite');

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

  it('the OpenAPI document gives every code its schema and example, and each operation its codes by status', () => {
    const document = buildOpenApiDocument(api.app) as unknown as {
      components: {
        schemas: Record<string, { properties: Record<string, { enum?: string[]; const?: string }> }>;
        examples: Record<string, { value: { code: string } }>;
      };
      paths: Record<string, Record<string, { responses: Record<string, Record<string, unknown>> }>>;
    };
    expect(document.components.schemas.Problem.properties.code.enum).toEqual([...PROBLEM_CODES]);
    for (const code of PROBLEM_CODES) {
      const name = `${code.replace(/(^|_)([a-z])/g, (_match, _sep, letter: string) => letter.toUpperCase())}Problem`;
      expect(document.components.schemas[name]?.properties.code.const, name).toBe(code);
      expect(document.components.examples[code].value.code).toBe(code);
    }
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        // No catch-all: a status the operation does not document is a test failure.
        expect(operation.responses.default, `${method} ${path}`).toBeUndefined();
        expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(expect.arrayContaining(['400', '500']));
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) < 400) continue;
          const codes = [...String(response.description).matchAll(/`([a-z_]+)`/g)].map((match) => match[1]);
          expect(codes.length, `${method} ${path} ${status}`).toBeGreaterThan(0);
          for (const code of codes) {
            const statuses = [
              PROBLEM_REGISTRY[code as keyof typeof PROBLEM_REGISTRY].status,
              ...OTHER_STATUSES.filter((other) => other.code === code).map((other) => other.status),
            ];
            expect(statuses, `${method} ${path} ${status} ${code}`).toContain(Number(status));
          }
        }
      }
    }
  });

  it('answers conflict with its registered status and title', async () => {
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
    // The design notes' names, written as a pattern so this list does not cite them itself.
    const outside = /SPEC(?: §|\.md)|PERFORMANCE\.md|HERMES-STATE\.md|\/work\/shared|[ (]API\.md/g;
    const offenders: string[] = [];
    for (const dir of ['libs', 'apps/api', 'apps/web/app', 'apps/web/lib', 'bench', 'test', 'examples', 'docs']) {
      for (const file of everyFile(join(ROOT, dir))) {
        const text = readFileSync(file, 'utf8');
        for (const match of text.matchAll(outside)) offenders.push(`${file.slice(ROOT.length + 1)}: ${match[0]}`);
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
