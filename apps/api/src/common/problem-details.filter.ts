import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import {
  PROBLEM_CODE_BY_STATUS,
  PROBLEM_REGISTRY,
  type Problem,
  type ProblemCode,
  problemTypeUri,
} from '@statehouse/contracts';
import { DomainError, toDomainError } from '@statehouse/state';
import type { Response } from 'express';
import type { StatehouseRequest } from './request.js';

/**
 * The one place errors become responses: `application/problem+json` with a stable `code`, its
 * status and title from the problem registry of libs/contracts (docs/api.md, Errors).
 * Domain errors map by code; framework errors by status; anything else is a 500 that is logged
 * with the request id and never shows its stack to the client.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Problem');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<StatehouseRequest>();
    const response = http.getResponse<Response>();
    const problem = this.toProblem(toDomainError(exception), request);
    if (response.headersSent) {
      response.end();
      return;
    }
    const retryAfter = (problem as { retryAfterSeconds?: number }).retryAfterSeconds;
    if (retryAfter !== undefined) response.setHeader('Retry-After', String(retryAfter));
    if (problem.status === 401) response.setHeader('WWW-Authenticate', 'Bearer realm="statehouse"');
    response.status(problem.status).type('application/problem+json').send(JSON.stringify(problem));
  }

  private toProblem(error: unknown, request: StatehouseRequest): Problem {
    const requestId = request?.id;
    if (error instanceof DomainError) {
      return this.build(error.code, error.message, requestId, error.extra);
    }
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const code = PROBLEM_CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'validation_failed');
      const body = error.getResponse();
      const messages = typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : body;
      const issues = Array.isArray(messages) ? messages.map(String) : undefined;
      const detail =
        status === 404 && !issues
          ? `no route ${request.method} ${request.path}`
          : issues
            ? issues.join('; ')
            : typeof messages === 'string'
              ? messages
              : PROBLEM_REGISTRY[code].title;
      return this.build(code, detail, requestId, issues ? { issues: issues.map(toIssue) } : {}, status);
    }
    // body-parser errors carry their own status (malformed JSON 400, too large 413).
    const parserError = error as { status?: number; type?: string; message?: string };
    if (typeof parserError?.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
      const code =
        parserError.type === 'entity.too.large'
          ? 'payload_too_large'
          : (PROBLEM_CODE_BY_STATUS[parserError.status] ?? 'validation_failed');
      const detail =
        code === 'payload_too_large' ? 'the request body exceeds the limit' : 'the request body is not valid JSON';
      return this.build(code, detail, requestId, {}, parserError.status);
    }
    this.logger.error(
      `unhandled error on ${request?.method} ${request?.originalUrl} [request ${requestId}]`,
      (error as Error)?.stack ?? String(error),
    );
    return this.build(
      'internal_error',
      `an internal error occurred; quote request id ${requestId} when reporting it`,
      requestId,
    );
  }

  private build(
    code: ProblemCode,
    detail: string,
    requestId: string | undefined,
    extra: Record<string, unknown> = {},
    status: number = PROBLEM_REGISTRY[code].status,
  ): Problem {
    return {
      type: problemTypeUri(code),
      title: PROBLEM_REGISTRY[code].title,
      status,
      code,
      detail,
      ...extra,
      ...(requestId ? { requestId } : {}),
    };
  }
}

/** "path.to.field: message" (the validation pipe's format) → {path, message}. */
function toIssue(message: string): { path: string; message: string } {
  const index = message.indexOf(': ');
  return index > 0 ? { path: message.slice(0, index), message: message.slice(index + 2) } : { path: '', message };
}
