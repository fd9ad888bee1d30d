import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { PROBLEM_CODES, PROBLEM_REGISTRY, SESSION_COOKIE_NAME } from '@statehouse/contracts';

export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Statehouse API')
    .setDescription(
      'Session state for AI-agent gateways: sessions, messages, lineage, fencing and deletion receipts. ' +
        'Errors are application/problem+json with a stable `code`.',
    )
    .setVersion('1')
    .addBearerAuth()
    .addCookieAuth(SESSION_COOKIE_NAME)
    .build();
  return withProblems(SwaggerModule.createDocument(app, config));
}

/**
 * Every error is a problem document whose `code` comes from the one registry in libs/contracts
 * (docs/api.md, Errors): the schema enumerates the codes with their status and meaning, and every
 * operation answers it as its default response.
 */
function withProblems(document: OpenAPIObject): OpenAPIObject {
  const table = PROBLEM_CODES.map(
    (code) => `- \`${code}\` (${PROBLEM_REGISTRY[code].status}): ${PROBLEM_REGISTRY[code].description}`,
  ).join('\n');
  document.components ??= {};
  document.components.schemas ??= {};
  document.components.schemas.Problem = {
    type: 'object',
    description: 'RFC 9457 problem details (`application/problem+json`).',
    required: ['type', 'title', 'status', 'code', 'detail'],
    properties: {
      type: { type: 'string', description: 'a URI naming the code' },
      title: { type: 'string' },
      status: { type: 'integer' },
      code: { type: 'string', enum: [...PROBLEM_CODES], description: `Stable error code:\n${table}` },
      detail: { type: 'string' },
      requestId: { type: 'string' },
      currentRevision: { type: 'integer', description: 'with revision_conflict' },
      currentGeneration: { type: 'integer', description: 'with stale_generation' },
      floor: { type: 'integer', description: 'with cursor_expired' },
      issues: {
        type: 'array',
        description: 'with validation_failed',
        items: {
          type: 'object',
          properties: { path: { type: 'string' }, message: { type: 'string' } },
        },
      },
    },
    'x-problem-codes': Object.fromEntries(PROBLEM_CODES.map((code) => [code, { ...PROBLEM_REGISTRY[code] }])),
  } as never;
  document.components.responses ??= {};
  document.components.responses.Problem = {
    description: 'An error: see the `code` enumeration of the Problem schema',
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
  };
  for (const path of Object.values(document.paths)) {
    for (const operation of Object.values(path)) {
      if (operation && typeof operation === 'object' && 'responses' in operation) {
        (operation.responses as Record<string, unknown>).default ??= { $ref: '#/components/responses/Problem' };
      }
    }
  }
  return document;
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
