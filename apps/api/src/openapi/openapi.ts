import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import {
  PROBLEM_CODES,
  PROBLEM_MEMBERS,
  PROBLEM_REGISTRY,
  type ProblemCode,
  ProblemSchema,
  problemTypeUri,
  SESSION_COOKIE_NAME,
} from '@statehouse/contracts';
import { type HandlerFacts, type OperationFacts, operationIdOf, readHandlerFacts } from './operation-facts.js';
import { OTHER_STATUSES, PROBLEM_SCOPES } from './problem-scopes.js';

/**
 * The OpenAPI 3.1 document (docs/api.md, "The OpenAPI document"): generated from the routes' own
 * declarations and the zod contracts (JSON Schema 2020-12, OpenAPI 3.1's dialect), then completed
 * here from what the routes declare — security, headers, every problem status with the codes the
 * operation can answer (problem-scopes.ts), examples and event streams. Committed as
 * apps/api/openapi.json (`npm run openapi`), linted by Redocly and Spectral, and every response
 * of the API tests is checked against it.
 */

/** Every tag an operation may carry, with what it groups: a tag missing here fails the build. */
export const TAGS: Record<string, string> = {
  auth: 'The dashboard session (login, logout, password) and who the caller is.',
  tokens: 'API tokens for integrations (admin): shown once, stored hashed, revocable.',
  users: 'Dashboard users (admin): role, profiles, disabled.',
  sessions:
    'Sessions: one row per conversation segment, with lifecycle (end, reopen), revisions (`ETag`/`If-Match`), deletion and export.',
  messages: 'The transcript of a session: appends (fenced by turn leases) and reads.',
  'live feeds':
    "Server-sent events of appends as they commit: a session's messages, and the sessions that get messages; resumable by message id (Last-Event-ID).",
  turns: 'Turn leases: one writer at a time per session, fenced by the generation.',
  lineage: 'Compression, branch and reset: a session continues in a child; the lineage tree.',
  handoff: 'Handing a conversation over to another surface.',
  routes: 'Routing keys: which session a chat belongs to.',
  gateways: 'Gateway processes: heartbeats, liveness and the orphan sweep.',
  deliveries: 'Delivery obligations: replies a gateway still owes, claimed and settled by workers.',
  schedules:
    'Scheduled wake-ups of a session (heartbeats and loops): owned by the gateway its route points at, claimed under a lease and completed once per tick.',
  delegations:
    'Async delegations: sub-agent work started in the background, and the wake-ups it owes its origin session, claimed and acknowledged once.',
  search: 'Full-text search over transcripts, and the search index (admin).',
  profiles: 'Profiles: the tenant namespaces sessions live in.',
  labels:
    "Labels people tag conversations with: a profile's own, renamed and recoloured under `If-Match`, applied to many sessions at once.",
  stats: 'Usage and deletion figures for the overview.',
  'deletion receipts':
    'The hash-chained feed of deletions: replay, watch (server-sent events), verify, reclaim, consumers.',
  'retention and maintenance': 'Retention windows and pruning (admin).',
  imports: 'Importing a Hermes Agent state.db (admin).',
  operations: 'Health, readiness, metrics, backups and scheduled jobs.',
};

const API_DESCRIPTION = `Session state for AI-agent gateways: sessions, messages, lineage, fencing and deletion receipts.

**Errors** are \`application/problem+json\` (RFC 9457) with a stable \`code\`. Every operation lists, per status, the codes it can answer; each code has its own schema (\`…Problem\`, discriminated by \`code\`) with the extension members it always carries (\`currentRevision\`, \`currentGeneration\`, \`floor\`, \`retryAfterSeconds\`, \`issues\`).

**Revisions and fencing**: single-session answers carry \`ETag: "<revision>"\`; mutations of a session send it back as \`If-Match\` (428 without, 412 when stale). Destructive operations also send \`X-Expected-Generation\`; writers under another holder's live turn present \`X-Turn-Id\`.

**Idempotency**: any authenticated POST, PUT, PATCH or DELETE honours \`Idempotency-Key\` (1–255 characters): a retry of the same request replays the first answer with \`Idempotent-Replayed: true\`; the same key with another request is \`422 idempotency_conflict\`.

**Pagination**: lists answer \`{items, nextCursor}\`; pass \`nextCursor\` back as \`cursor\` until it is \`null\`. Receipts page by sequence (\`after\`).

**Retries**: \`429\` and \`503\` answers carry \`Retry-After\` (seconds).`;

/** The project's own site, as in every problem's `type` URI. */
const SITE = 'https://statehouse.dev';

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  304: 'Not Modified',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** The request headers of the fencing and idempotency protocol, with the values the API accepts. */
const REQUEST_HEADER_SCHEMAS: Record<string, Record<string, unknown>> = {
  'If-Match': { type: 'string', pattern: '^(W/)?"?\\d{1,15}"?$', examples: ['"3"'] },
  'X-Expected-Generation': { type: 'string', pattern: '^\\d{1,15}$', examples: ['2'] },
  'X-Turn-Id': { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$', examples: ['turn-01J9Z6Q4'] },
  'Idempotency-Key': { type: 'string', minLength: 1, maxLength: 255, examples: ['append-7f3c2a'] },
  'Last-Event-ID': { type: 'string', pattern: '^\\d{0,16}$', examples: ['42'] },
  'If-None-Match': { type: 'string', examples: ['"4"'] },
};

const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'replays the first response for a retry of the same request; 422 for a different request',
  schema: REQUEST_HEADER_SCHEMAS['Idempotency-Key'],
};

const IF_NONE_MATCH_PARAMETER = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'an `ETag` read before: 304 without a body while the session still carries that revision',
  schema: REQUEST_HEADER_SCHEMAS['If-None-Match'],
};

const HEADERS = {
  'X-Request-Id': {
    description: 'The request id (the one the caller sent, else a new one): quote it when reporting a problem.',
    required: true,
    schema: { type: 'string' },
  },
  ETag: {
    description:
      'The session revision, `"<revision>"`: send it back as `If-Match`. (A replayed idempotent answer may lack it: read the body’s `revision`.)',
    schema: { type: 'string', pattern: '^"\\d+"$', examples: ['"4"'] },
  },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    required: true,
    schema: { type: 'string', pattern: '^\\d+$', examples: ['1'] },
  },
  'WWW-Authenticate': {
    description: 'The authentication scheme to use: `Bearer realm="statehouse"`.',
    required: true,
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description: 'Event streams are never cached or transformed by a proxy.',
    required: true,
    schema: { type: 'string', examples: ['no-cache, no-transform'] },
  },
} as const;

const headerRef = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** `stale_generation` → `StaleGenerationProblem`. */
const problemSchemaName = (code: ProblemCode) =>
  `${code
    .split('_')
    .map((part) => `${part.charAt(0).toUpperCase()}${part.slice(1)}`)
    .join('')}Problem`;

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Statehouse API')
    .setDescription(API_DESCRIPTION)
    .setVersion('1')
    .addServer('http://{host}:{port}', 'A Statehouse API (STATEHOUSE_HOST, STATEHOUSE_API_PORT)', {
      host: { default: '127.0.0.1', description: 'the host the API listens on' },
      port: { default: '3000', description: 'STATEHOUSE_API_PORT' },
    })
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: 'An API token (`POST /v1/tokens`, or `npm run token`): `Authorization: Bearer <token>`.',
      },
      'bearer',
    )
    .addCookieAuth(
      SESSION_COOKIE_NAME,
      {
        type: 'apiKey',
        in: 'cookie',
        name: SESSION_COOKIE_NAME,
        description: 'The dashboard session cookie set by `POST /v1/auth/login` (mutations only from the same origin).',
      },
      'cookie',
    );
  for (const [name, description] of Object.entries(TAGS)) builder.addTag(name, description);
  const document = SwaggerModule.createDocument(app, builder.build(), {
    operationIdFactory: operationIdOf,
    standardSchemaConverter: (schema, { schemaType }) => toJsonSchema(schema, schemaType),
  });
  return completeDocument(document, readHandlerFacts(app));
}

/** zod → JSON Schema 2020-12, the dialect of OpenAPI 3.1 (zod's Standard JSON Schema interface). */
function toJsonSchema(
  schema: unknown,
  io: 'input' | 'output',
): { schema: unknown; components: Record<string, unknown> } | undefined {
  const standard = (schema as { '~standard'?: { jsonSchema?: Record<string, (options: object) => unknown> } })?.[
    '~standard'
  ];
  const convert = standard?.jsonSchema?.[io];
  if (!convert) return undefined;
  const { $schema: _dialect, $defs, ...rest } = convert({ target: 'draft-2020-12' }) as Record<string, unknown>;
  return { schema: rest, components: ($defs as Record<string, unknown>) ?? {} };
}

type Json = Record<string, unknown>;
type Operation = Json & {
  operationId: string;
  summary?: string;
  tags?: string[];
  parameters?: (Json & { name: string; in: string; required?: boolean; schema?: Json })[];
  requestBody?: Json & { content?: Record<string, { schema?: Json }> };
  responses: Record<string, Json>;
  security?: Record<string, string[]>[];
};

const METHODS = ['get', 'head', 'put', 'post', 'delete', 'patch'] as const;

function completeDocument(document: OpenAPIObject, handlers: Map<string, HandlerFacts>): OpenAPIObject {
  const doc = document as unknown as Json & {
    info: Json;
    paths: Record<string, Record<string, Operation>>;
    components: Json & { schemas: Record<string, Json> };
  };
  doc.info.summary = 'Session state for AI-agent gateways';
  doc.info.contact = { name: 'Statehouse', url: SITE };
  // TODO(when the project chooses a license): name it here (an SPDX `identifier`).
  doc.info.license = { name: 'No license chosen yet', url: `${SITE}/license` };
  doc.security = [{ bearer: [] }, { cookie: [] }];
  doc.components.headers = HEADERS;
  addProblemComponents(doc.components);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const handler = handlers.get(operation.operationId);
      if (!handler) throw new Error(`no route handler behind operation ${operation.operationId}`);
      completeOperation(path, method, operation, handler, doc.components.schemas);
    }
  }
  normalizeSchemas(doc);
  return document;
}

function completeOperation(
  path: string,
  method: (typeof METHODS)[number],
  operation: Operation,
  handler: HandlerFacts,
  schemas: Record<string, Json>,
): void {
  const where = `${method.toUpperCase()} ${path} (${operation.operationId})`;
  if (!operation.summary) throw new Error(`${where} has no summary: give it @ApiOperation({ summary })`);
  const tag = operation.tags?.[0];
  if (!tag || operation.tags?.length !== 1) throw new Error(`${where} needs exactly one tag (@ApiTags)`);
  if (!TAGS[tag]) throw new Error(`${where}: tag "${tag}" is not declared in TAGS (apps/api/src/openapi/openapi.ts)`);

  const unsafe = method !== 'get' && method !== 'head';
  const idempotent = unsafe && handler.auth !== 'public';
  operation.parameters ??= [];
  if (idempotent && !operation.parameters.some((parameter) => parameter.name === 'Idempotency-Key')) {
    operation.parameters.push({ ...IDEMPOTENCY_KEY_PARAMETER });
  }
  const conditional = method === 'get' && handler.revisionEtag;
  if (conditional) operation.parameters.push({ ...IF_NONE_MATCH_PARAMETER });
  for (const parameter of operation.parameters) {
    if (parameter.in === 'header' && REQUEST_HEADER_SCHEMAS[parameter.name]) {
      parameter.schema = REQUEST_HEADER_SCHEMAS[parameter.name];
    }
  }
  if (operation.parameters.length === 0) delete operation.parameters;

  const parameters = operation.parameters ?? [];
  const body = operation.requestBody?.content?.['application/json']?.schema;
  const cookieOnly = operation.security?.length === 1 && 'cookie' in operation.security[0];
  const facts: OperationFacts = {
    operationId: operation.operationId,
    method: method.toUpperCase(),
    path,
    tag,
    auth: handler.auth,
    adminOnly: handler.adminOnly,
    cookieOnly,
    mutation: unsafe && handler.readOnly !== 'always',
    pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
    queryFields: parameters.filter((p) => p.in === 'query').map((p) => p.name),
    bodyFields: Object.keys((resolve(body, schemas)?.properties as Json | undefined) ?? {}),
    hasBody: operation.requestBody !== undefined,
    jsonBody: operation.requestBody?.content?.['application/json'] !== undefined,
    headers: Object.fromEntries(
      parameters.filter((p) => p.in === 'header').map((p) => [p.name, p.required ? 'required' : 'optional']),
    ),
    idempotent,
    throttled: handler.throttled,
    storeFree: handler.storeFree,
    revisionEtag: handler.revisionEtag,
    events: handler.events,
  };

  operation.security =
    facts.auth === 'public'
      ? []
      : facts.auth === 'optional'
        ? [{}, { bearer: [] }, { cookie: [] }]
        : cookieOnly
          ? [{ cookie: [] }]
          : [{ bearer: [] }, { cookie: [] }];

  completeSuccessResponses(operation, facts);
  if (conditional) {
    operation.responses['304'] = {
      description: 'Not Modified: the session still carries the revision named by `If-None-Match`',
      headers: { 'X-Request-Id': headerRef('X-Request-Id'), ETag: headerRef('ETag') },
    };
  }
  const codes = PROBLEM_CODES.filter((code) => PROBLEM_SCOPES[code].applies(facts));
  const byStatus = new Map<number, ProblemCode[]>();
  const answer = (status: number, code: ProblemCode) => byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  for (const code of codes) answer(PROBLEM_REGISTRY[code].status, code);
  for (const other of OTHER_STATUSES) if (other.applies(facts)) answer(other.status, other.code);
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    operation.responses[String(status)] = problemResponse(status, byStatus.get(status) ?? []);
  }
  delete operation.responses.default;
  operation.description = describe(operation.summary, facts, byStatus);
  operation['x-problem-codes'] = codes;
  if (facts.adminOnly) operation['x-admin-only'] = true;
}

function completeSuccessResponses(operation: Operation, facts: OperationFacts): void {
  for (const [status, response] of Object.entries(operation.responses)) {
    const code = Number(status);
    if (!(code >= 200 && code < 300)) continue;
    if (!response.description) response.description = STATUS_TEXT[code] ?? 'Success';
    const headers: Json = { 'X-Request-Id': headerRef('X-Request-Id'), ...((response.headers as Json) ?? {}) };
    if (facts.revisionEtag && response.content) headers.ETag = headerRef('ETag');
    if (facts.idempotent) headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
    if (facts.events) {
      headers['Cache-Control'] = headerRef('Cache-Control');
      response.content = { 'text/event-stream': eventStreamContent(facts.events) };
    }
    response.headers = headers;
  }
}

/** An event stream's body: one of these events, each `event:` name with its `data` schema. */
function eventStreamContent(events: NonNullable<OperationFacts['events']>): Json {
  const variants = Object.entries(events).map(([name, event]) => {
    const data = toJsonSchema(event.data, 'output')?.schema as Json;
    return {
      title: name,
      description: event.description,
      type: 'object',
      required: ['event', 'data', ...(event.id ? ['id'] : [])],
      properties: {
        event: { const: name },
        ...(event.id ? { id: { type: 'string', description: event.id } } : {}),
        data: { description: 'the event’s data line, JSON', ...data },
      },
    };
  });
  return {
    schema: {
      description:
        'Server-sent events (`text/event-stream`): each event is one of these, its `data` line JSON. Comment lines (`: keepalive`) may come between events.',
      oneOf: variants,
    },
  };
}

function problemResponse(status: number, codes: ProblemCode[]): Json {
  const headers: Json = { 'X-Request-Id': headerRef('X-Request-Id') };
  if (status === 401) headers['WWW-Authenticate'] = headerRef('WWW-Authenticate');
  if (status === 429 || status === 503) headers['Retry-After'] = headerRef('Retry-After');
  const refs = codes.map((code) => ({ $ref: `#/components/schemas/${problemSchemaName(code)}` }));
  const schema =
    refs.length === 1
      ? refs[0]
      : {
          oneOf: refs,
          discriminator: {
            propertyName: 'code',
            mapping: Object.fromEntries(codes.map((code) => [code, `#/components/schemas/${problemSchemaName(code)}`])),
          },
        };
  return {
    description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((code) => `\`${code}\``).join(', ')}`,
    headers,
    content: {
      'application/problem+json': {
        schema,
        examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
      },
    },
  };
}

/** The operation's description: its summary, then what it requires and answers, derived from its facts. */
function describe(summary: string, facts: OperationFacts, byStatus: Map<number, ProblemCode[]>): string {
  const lines = [summary.endsWith('.') ? summary : `${summary}.`, ''];
  lines.push(
    facts.auth === 'public'
      ? '**Credentials**: none.'
      : facts.auth === 'optional'
        ? `**Credentials**: optional${facts.adminOnly ? ' from the loopback address; else an admin' : ''}.`
        : facts.cookieOnly
          ? '**Credentials**: the dashboard session cookie (a person, not a token).'
          : `**Credentials**: a bearer token or the dashboard cookie${facts.adminOnly ? '; **admin only** (403 to members)' : ''}.`,
  );
  const preconditions = Object.entries(facts.headers)
    .filter(([name]) => ['If-Match', 'X-Expected-Generation', 'X-Turn-Id'].includes(name))
    .map(([name, need]) => `\`${name}\` (${need})`);
  if (preconditions.length) lines.push(`**Preconditions**: ${preconditions.join(', ')}.`);
  if (facts.idempotent) lines.push('**Idempotency**: honours `Idempotency-Key`.');
  if (facts.queryFields.includes('cursor'))
    lines.push('**Pages**: pass `nextCursor` back as `cursor` until it is `null`.');
  if (facts.events)
    lines.push(
      `**Events**: ${Object.keys(facts.events)
        .map((name) => `\`${name}\``)
        .join(', ')}.`,
    );
  lines.push(
    `**Errors**: ${[...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => `${status} ${codes.map((code) => `\`${code}\``).join('/')}`)
      .join('; ')}.`,
  );
  return lines.join('\n');
}

/**
 * `Problem` (every problem document) and one schema per code (`StaleGenerationProblem`, …) with the
 * members that code always carries, plus an example of each.
 */
function addProblemComponents(components: Json & { schemas: Record<string, Json> }): void {
  const base = toJsonSchema(ProblemSchema, 'output')?.schema as Json;
  components.schemas.Problem = {
    ...base,
    description: 'RFC 9457 problem details (`application/problem+json`); `code` is one of the registry’s codes.',
  };
  const examples: Json = {};
  for (const code of PROBLEM_CODES) {
    const entry = PROBLEM_REGISTRY[code];
    const members = PROBLEM_MEMBERS[code as keyof typeof PROBLEM_MEMBERS];
    const memberSchema = members ? ((toJsonSchema(members, 'output')?.schema as Json) ?? {}) : {};
    const memberProperties = (memberSchema.properties as Record<string, Json> | undefined) ?? {};
    components.schemas[problemSchemaName(code)] = {
      title: problemSchemaName(code),
      description: `\`${code}\` (${entry.status} ${entry.title}): ${entry.description}`,
      allOf: [{ $ref: '#/components/schemas/Problem' }],
      type: 'object',
      required: ['code', ...((memberSchema.required as string[] | undefined) ?? [])],
      properties: { code: { const: code }, ...memberProperties },
    };
    const exampleMembers = Object.fromEntries(
      Object.entries(memberProperties)
        .filter(([, schema]) => Array.isArray(schema.examples))
        .map(([name, schema]) => [name, (schema.examples as unknown[])[0]]),
    );
    examples[code] = {
      summary: entry.title,
      description: entry.description,
      value: {
        type: problemTypeUri(code),
        title: entry.title,
        status: entry.status,
        code,
        detail: entry.description,
        ...exampleMembers,
        requestId: '5f0c6d1e-8a1b-4c1e-9d7a-2b3c4d5e6f70',
      },
    };
  }
  components.examples = examples;
}

function resolve(schema: Json | undefined, schemas: Record<string, Json>): Json | undefined {
  const ref = schema?.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    return schemas[ref.slice('#/components/schemas/'.length)];
  }
  return schema;
}

/** Keywords whose values are schemas, maps of schemas or lists of schemas (JSON Schema 2020-12). */
const SCHEMA_KEYWORDS = new Set([
  'items',
  'prefixItems',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
]);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

/**
 * @nestjs/swagger writes a converted schema's `examples` as OpenAPI 3.0's `example`: put them back
 * as the JSON Schema keyword (3.1).
 */
function normalizeSchemas(document: Json): void {
  const schema = (value: unknown): void => {
    if (!value || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const entry of value) schema(entry);
      return;
    }
    const node = value as Json;
    if ('example' in node) {
      node.examples = [node.example];
      delete node.example;
    }
    for (const [key, child] of Object.entries(node)) {
      if (SCHEMA_KEYWORDS.has(key)) schema(child);
      else if (SCHEMA_MAPS.has(key) && child && typeof child === 'object') {
        for (const member of Object.values(child as Json)) schema(member);
      }
    }
  };
  const components = document.components as Json;
  for (const value of Object.values((components.schemas as Json) ?? {})) schema(value);
  for (const item of Object.values(document.paths as Record<string, Record<string, Operation>>)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      for (const parameter of operation.parameters ?? []) schema(parameter.schema);
      for (const media of Object.values(operation.requestBody?.content ?? {})) schema(media.schema);
      for (const response of Object.values(operation.responses)) {
        for (const media of Object.values((response.content as Record<string, Json>) ?? {})) schema(media.schema);
      }
    }
  }
}

/** Swagger UI at /docs and the document at /openapi.json (both public, served locally). */
export function mountOpenApi(app: INestApplication): OpenAPIObject {
  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, {
    jsonDocumentUrl: 'openapi.json',
    raw: ['json'],
    customSiteTitle: 'Statehouse API',
  });
  return document;
}

/** Stable text for the committed copy: keys sorted so the diff shows only real changes. */
export function serializeOpenApi(document: OpenAPIObject): string {
  const sort = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sort);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value as object)
          .sort()
          .map((key) => [key, sort((value as Record<string, unknown>)[key])]),
      );
    }
    return value;
  };
  return `${JSON.stringify(sort(document), null, 2)}\n`;
}
