import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { SESSION_COOKIE_NAME } from '@statehouse/contracts';

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
  return SwaggerModule.createDocument(app, config);
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
