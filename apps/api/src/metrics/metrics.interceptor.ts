import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import type { Observable } from 'rxjs';
import type { StatehouseRequest } from '../common/request.js';
import { MetricsRegistry } from './metrics.registry.js';

/** Request counts and latency by route template (never by raw path: ids would explode the labels). */
@Injectable()
export class MetricsInterceptor implements NestInterceptor {
  constructor(@Inject(MetricsRegistry) private readonly metrics: MetricsRegistry) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const started = process.hrtime.bigint();
    const request = context.switchToHttp().getRequest<StatehouseRequest>();
    const response = context.switchToHttp().getResponse<Response>();
    response.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (request.route?.path as string | undefined) ?? 'unmatched';
      this.metrics.recordRequest(request.method, route, response.statusCode, seconds);
    });
    return next.handle();
  }
}
