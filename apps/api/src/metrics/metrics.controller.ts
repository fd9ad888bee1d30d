import { Controller, Get, Header, Inject, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ForbiddenError, type StateStore, UnauthenticatedError } from '@statehouse/state';
import { OptionalAuth } from '../auth/auth-mode.decorator.js';
import type { StatehouseRequest } from '../common/request.js';
import { STATE_STORE } from '../common/tokens.js';
import { MetricsRegistry } from './metrics.registry.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/** Prometheus text, for admins or a scraper on the same host. */
@ApiExcludeController()
@Controller()
export class MetricsController {
  constructor(
    @Inject(MetricsRegistry) private readonly metrics: MetricsRegistry,
    @Inject(STATE_STORE) private readonly store: StateStore,
  ) {}

  @Get('metrics')
  @OptionalAuth()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  render(@Req() request: StatehouseRequest): string {
    const loopback = LOOPBACK.has(request.socket.remoteAddress ?? '');
    if (!loopback) {
      if (!request.user) throw new UnauthenticatedError();
      if (request.user.role !== 'admin') throw new ForbiddenError();
    }
    return this.metrics.render(this.store.checkpoints(), this.store.appendWriter()?.status());
  }
}
