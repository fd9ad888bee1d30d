import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import { type Observable, tap } from 'rxjs';

/** Single-session responses carry `ETag: "<revision>"`, the value If-Match expects back. */
@Injectable()
export class RevisionEtagInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const response = context.switchToHttp().getResponse<Response>();
    return next.handle().pipe(
      tap((body) => {
        const revision = (body as { revision?: unknown } | undefined)?.revision;
        if (typeof revision === 'number' && !response.headersSent) response.setHeader('ETag', `"${revision}"`);
      }),
    );
  }
}
