import { Controller, Get, Header, Inject, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { ForbiddenError, type StateStore, SYSTEM_PRINCIPAL, UnauthenticatedError } from '@statehouse/state';
import { AdminOnly, OptionalAuth } from '../auth/auth-mode.decorator.js';
import type { StatehouseRequest } from '../common/request.js';
import { STATE_STORE } from '../common/tokens.js';
import { MetricsRegistry } from './metrics.registry.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** Prometheus text, for admins or a scraper on the same host. */
@ApiTags('operations')
@Controller()
export class MetricsController {
  constructor(
    @Inject(MetricsRegistry) private readonly metrics: MetricsRegistry,
    @Inject(STATE_STORE) private readonly store: StateStore,
  ) {}

  @Get('metrics')
  @OptionalAuth()
  @AdminOnly()
  @ApiOperation({
    summary: 'Prometheus metrics (text exposition format 0.0.4), for admins or a scraper on the same host',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description: 'Prometheus text exposition format 0.0.4',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  // prom-client's Registry.PROMETHEUS_CONTENT_TYPE.
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async render(@Req() request: StatehouseRequest): Promise<string> {
    const loopback = LOOPBACK.has(request.socket.remoteAddress ?? '');
    if (!loopback) {
      if (!request.user) throw new UnauthenticatedError();
      if (request.user.role !== 'admin') throw new ForbiddenError();
    }
    // A store that cannot answer leaves this gauge empty; the process's own figures still render.
    const unroutableDue = await this.store.schedules
      .countUnroutableDue({ principal: SYSTEM_PRINCIPAL, channel: 'system' })
      .catch(() => null);
    return this.metrics.render({
      checkpoints: this.store.checkpoints(),
      appendWriter: this.store.appendWriter()?.status(),
      unroutableDue,
    });
  }
}
