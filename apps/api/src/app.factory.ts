import type { LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { type AppDependencies, AppModule } from './app.module.js';
import { ProblemDetailsFilter } from './common/problem-details.filter.js';
import { requestIdMiddleware } from './common/request-id.middleware.js';
import { mountOpenApi } from './openapi/openapi.js';
import { QuietLogger } from './quiet-logger.js';

export const BODY_LIMIT = '5mb';

/**
 * NUL cannot be stored in PostgreSQL text; replace it with U+FFFD in every JSON string on the way
 * in, so both dialects keep exactly the same text.
 */
function replaceNul(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
}

/** Builds the Nest application around an opened store; `listen` is the caller's. */
export async function createApp(
  dependencies: AppDependencies,
  options: { logger?: LoggerService | LogLevel[] | false } = {},
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(dependencies), {
    bodyParser: false,
    logger: options.logger ?? new QuietLogger(),
  });
  app.disable('x-powered-by');
  // Entity tags are ours (a session's revision), not express's body hashes.
  app.set('etag', false);
  // The dashboard and local tools reach the API from loopback; trust only that hop.
  app.set('trust proxy', 'loopback');
  app.use(requestIdMiddleware);
  app.useBodyParser('json', {
    limit: BODY_LIMIT,
    type: ['application/json', 'application/*+json'],
    reviver: replaceNul,
  });
  app.useGlobalFilters(new ProblemDetailsFilter());
  mountOpenApi(app);
  await app.init();
  return app;
}
