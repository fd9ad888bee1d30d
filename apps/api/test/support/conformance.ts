import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Response conformance (docs/api.md, "The OpenAPI document"): every response an API test receives
 * is checked against the committed OpenAPI document — its status must be documented for the
 * operation, its content type listed, each required header present and each documented header's
 * value valid, and a JSON body (problems included) must match its JSON Schema 2020-12 schema with
 * Ajv. Problem codes are part of that schema (each status's `…Problem` schemas), so an undocumented
 * `code` fails like an undocumented status. Streams (server-sent events, JSON lines) and text are
 * checked for status, content type and headers; server-sent events also event by event when the
 * test read them.
 *
 * Why Ajv and not an OpenAPI response-validator package: the candidates either stop at OpenAPI
 * 3.0 (openapi-response-validator, jest-openapi/chai-openapi-response-validator) or validate bodies
 * only for `application/json` — every `application/problem+json` answer would pass unchecked —
 * and compile 3.1 schemas with a draft-07 Ajv unless told otherwise (openapi-backend). Ajv is the
 * maintained JSON Schema validator those packages wrap; OpenAPI 3.1 schemas are plain JSON Schema
 * 2020-12, so only the routing and the HTTP parts (status, media type, headers) are ours.
 */

type Json = Record<string, unknown>;

interface Operation {
  operationId: string;
  responses: Record<string, Json & { headers?: Record<string, Json>; content?: Record<string, { schema?: Json }> }>;
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  /** Literal segments count: `/v1/sessions/facets` wins over `/v1/sessions/{id}`. */
  literals: number;
  pointer: string;
  operation: Operation;
}

/** A response as a test received it. */
export interface ReceivedResponse {
  method: string;
  /** Path and query as requested (`/v1/sessions?limit=2`); an absolute URL is reduced to it. */
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, when the test parsed one. */
  body?: unknown;
  /** The raw text, when the test has it. */
  text?: string;
}

/**
 * Routes the document does not describe because they are not API operations: the documentation
 * itself, and the test-only hooks (`/v1/testing/*`, mounted only with STATEHOUSE_TEST_HOOKS=1 and
 * deliberately left out of the public contract, docs/api.md).
 */
const NOT_OPERATIONS = [/^\/docs(\/|$)/, /^\/openapi\.json$/, /^\/v1\/testing\//];

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export class OpenApiConformance {
  private readonly routes: Route[] = [];
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: Json & { paths: Record<string, Record<string, Operation>> }) {
    this.ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictTuples: false });
    addFormats(this.ajv);
    // OpenAPI's own schema keyword, and the document's top-level members (the document is added
    // whole so `#/components/…` references resolve): annotations for validation.
    this.ajv.addKeyword('discriminator');
    for (const member of Object.keys(document)) this.ajv.addKeyword(member);
    this.ajv.addSchema(document, 'openapi.json');
    for (const [template, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const names: string[] = [];
        const source = template
          .split('/')
          .map((segment) => {
            const parameter = /^\{(\w+)\}$/.exec(segment);
            if (!parameter) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
            names.push(parameter[1]);
            return '[^/]+';
          })
          .join('/');
        this.routes.push({
          method: method.toUpperCase(),
          template,
          // As Express routes (strict: false, caseSensitive: false): one trailing slash and any case.
          pattern: new RegExp(`^${source}/?$`, 'i'),
          literals: template.split('/').filter((segment) => segment && !segment.startsWith('{')).length,
          pointer: `#/paths/${escapePointer(template)}/${method}`,
          operation,
        });
      }
    }
    this.routes.sort((a, b) => b.literals - a.literals);
  }

  static fromFile(path: string | URL): OpenApiConformance {
    return new OpenApiConformance(JSON.parse(readFileSync(path, 'utf8')));
  }

  /** The operation a request reaches, if the document describes one. */
  match(method: string, path: string): Route | undefined {
    const upper = method.toUpperCase();
    return this.routes.find((route) => route.method === upper && route.pattern.test(path));
  }

  /** Every way the response departs from the document (empty when it conforms). */
  check(response: ReceivedResponse): string[] {
    const path = pathOf(response.url);
    if (NOT_OPERATIONS.some((pattern) => pattern.test(path))) return [];
    // HEAD is GET without a body (Express answers it for every GET route).
    const head = response.method.toUpperCase() === 'HEAD';
    const route = this.match(head ? 'GET' : response.method, path);
    if (!route) return this.checkUnrouted(response, path);
    const where = `${response.method.toUpperCase()} ${route.template} (${route.operation.operationId}) → ${response.status}`;
    const documented = route.operation.responses[String(response.status)];
    if (!documented) {
      const code = (response.body as { code?: unknown } | undefined)?.code;
      return [
        `${where}: status ${response.status}${code ? ` (code ${String(code)})` : ''} is not documented (documented: ${Object.keys(route.operation.responses).join(', ')})`,
      ];
    }
    const violations: string[] = [];
    const responsePointer = `${route.pointer}/responses/${response.status}`;
    violations.push(...this.checkHeaders(where, documented.headers ?? {}, response.headers));
    if (head) return violations;
    const contentType = header(response.headers, 'content-type');
    const mediaType = contentType?.split(';')[0].trim().toLowerCase();
    const content = documented.content ?? {};
    if (Object.keys(content).length === 0) {
      if (mediaType && response.status !== 204)
        violations.push(`${where}: documented without a body, answered ${mediaType}`);
      return violations;
    }
    if (!mediaType || !(mediaType in content)) {
      violations.push(
        `${where}: content type ${mediaType ?? '(none)'} is not documented (documented: ${Object.keys(content).join(', ')})`,
      );
      return violations;
    }
    const schemaPointer = `${responsePointer}/content/${escapePointer(mediaType)}/schema`;
    if (isJson(mediaType)) {
      const body = response.body ?? parseText(response.text);
      violations.push(...this.validate(where, schemaPointer, body));
      const status = (body as { status?: unknown } | undefined)?.status;
      if (mediaType === 'application/problem+json' && status !== response.status) {
        violations.push(`${where}: the problem says status ${String(status)}`);
      }
    } else if (mediaType === 'text/event-stream' && typeof response.text === 'string') {
      violations.push(...this.checkEvents(where, content[mediaType].schema ?? {}, response.text));
    }
    return violations;
  }

  /** Throws with every violation (what the API tests call on each response). */
  assert(response: ReceivedResponse): void {
    const violations = this.check(response);
    if (violations.length > 0) {
      const body = response.text ?? JSON.stringify(response.body);
      throw new Error(
        `the response does not conform to apps/api/openapi.json:\n- ${violations.join('\n- ')}\nbody: ${String(body).slice(0, 1500)}`,
      );
    }
  }

  /** A path no operation serves: the API answers it `404 not_found` (or 401 first), as a problem. */
  private checkUnrouted(response: ReceivedResponse, path: string): string[] {
    const where = `${response.method.toUpperCase()} ${path} (no operation) → ${response.status}`;
    if (response.status !== 404 && response.status !== 400) {
      return [`${where}: a path the document does not describe answered ${response.status}`];
    }
    const mediaType = header(response.headers, 'content-type')?.split(';')[0].trim();
    if (mediaType !== 'application/problem+json') return [`${where}: not a problem document (${mediaType})`];
    return this.validate(where, '#/components/schemas/Problem', response.body ?? parseText(response.text));
  }

  private checkHeaders(
    where: string,
    documented: Record<string, Json>,
    received: ReceivedResponse['headers'],
  ): string[] {
    const violations: string[] = [];
    for (const [name, definition] of Object.entries(documented)) {
      const resolved = this.resolve(definition) as { required?: boolean; schema?: Json };
      const value = header(received, name);
      if (value === undefined) {
        if (resolved.required) violations.push(`${where}: required header ${name} is missing`);
        continue;
      }
      if (resolved.schema) {
        const validate = this.compile(JSON.stringify(resolved.schema), resolved.schema);
        if (!validate(value))
          violations.push(`${where}: header ${name}: ${JSON.stringify(value)} ${this.ajv.errorsText(validate.errors)}`);
      }
    }
    return violations;
  }

  /** Each event of a read stream must be one the document lists, its data valid for that event. */
  private checkEvents(where: string, schema: Json, text: string): string[] {
    const variants = (schema.oneOf as Json[] | undefined) ?? [];
    const violations: string[] = [];
    for (const block of text.split(/\r?\n\r?\n/)) {
      const fields = block.split(/\r?\n/).filter((line) => line && !line.startsWith(':'));
      if (fields.length === 0) continue;
      const event =
        fields
          .find((line) => line.startsWith('event:'))
          ?.slice(6)
          .trim() ?? 'message';
      const data = fields
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      const variant = variants.find(
        (entry) => (entry.properties as Json)?.event && ((entry.properties as Json).event as Json).const === event,
      );
      if (!variant) {
        violations.push(`${where}: event "${event}" is not documented`);
        continue;
      }
      const dataSchema = (variant.properties as Json).data as Json;
      const validate = this.compile(JSON.stringify(dataSchema), dataSchema);
      const value = parseText(data);
      if (!validate(value)) violations.push(`${where}: event "${event}" data ${this.ajv.errorsText(validate.errors)}`);
    }
    return violations;
  }

  private validate(where: string, pointer: string, value: unknown): string[] {
    const validate = this.compile(pointer, { $ref: `openapi.json${pointer}` });
    if (validate(value)) return [];
    return [`${where}: body ${this.ajv.errorsText(validate.errors, { separator: '; ', dataVar: 'body' })}`];
  }

  private compile(key: string, schema: Json): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      // Inline schemas (headers, events) may hold refs into the document: give them its base.
      validate = this.ajv.compile(schema.$ref ? schema : { ...schema, $id: `inline-${this.validators.size}` });
      this.validators.set(key, validate);
    }
    return validate;
  }

  private resolve(value: Json): Json {
    const ref = value.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) return value;
    let node: unknown = this.document;
    for (const segment of ref.slice(2).split('/')) {
      node = (node as Json)[segment.replaceAll('~1', '/').replaceAll('~0', '~')];
    }
    return node as Json;
  }
}

function pathOf(url: string): string {
  const path = url.startsWith('http') ? new URL(url).pathname + new URL(url).search : url;
  return path.split('?')[0];
}

function header(headers: ReceivedResponse['headers'], name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

const isJson = (mediaType: string) => mediaType === 'application/json' || mediaType.endsWith('+json');

function parseText(text: string | undefined): unknown {
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The committed document, checked once per test process. */
export const conformance = OpenApiConformance.fromFile(new URL('../../openapi.json', import.meta.url));
