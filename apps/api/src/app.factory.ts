import type { LoggerService, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { type AppDependencies, AppModule } from './app.module.js';
import { answerMalformedRequests } from './common/client-error.js';
import { plainJsonBody } from './common/json-body.js';
import { JsonReplyExpressAdapter } from './common/json-reply.adapter.js';
import { ProblemDetailsFilter } from './common/problem-details.filter.js';
import { wellFormedJson } from './common/request-hygiene.js';
import { requestPreamble } from './common/security-headers.js';
import { mountOpenApi } from './openapi/openapi.js';
import { QuietLogger } from './quiet-logger.js';

/** 5 MiB: the largest request body (413 above). */
export const BODY_LIMIT = 5 * 1024 * 1024;

/** Builds the Nest application around an opened store; `listen` is the caller's. */
export async function createApp(
  dependencies: AppDependencies,
  options: { logger?: LoggerService | LogLevel[] | false } = {},
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.register(dependencies),
    new JsonReplyExpressAdapter(),
    {
      bodyParser: false,
      logger: options.logger ?? new QuietLogger(),
    },
  );
  app.disable('x-powered-by');
  // Entity tags are ours (a session's revision), not express's body hashes.
  app.set('etag', false);
  // X-Forwarded-* are believed from these peers only (the dashboard, a reverse proxy): the
  // client address drives login limits and the forwarded host the same-origin check.
  app.set('trust proxy', dependencies.config.trustedProxies.length > 0 ? dependencies.config.trustedProxies : false);
  // Request id, security headers, no-store, the NUL check of the URL: one middleware.
  app.use(requestPreamble({ https: dependencies.config.secureCookies }));
  // Plain JSON bodies (nearly every request) are read here; the rest falls through to body-parser.
  app.use(plainJsonBody(BODY_LIMIT));
  app.useBodyParser('json', {
    limit: BODY_LIMIT,
    type: ['application/json', 'application/*+json'],
    // NUL and lone surrogates become U+FFFD, so both dialects store exactly the same text.
    reviver: wellFormedJson,
  });
  app.useGlobalFilters(new ProblemDetailsFilter());
  mountOpenApi(app);
  await app.init();
  answerMalformedRequests(app.getHttpServer());
  return app;
}
