import { Controller, Get, HttpCode, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Health, HealthSchema } from '@statehouse/contracts';
import { type StateStore, StoreUnavailableError } from '@statehouse/state';
import { Public } from '../auth/auth-mode.decorator.js';
import { StoreFree } from '../common/operation-facts.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Get('healthz')
  @Public()
  @StoreFree()
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiOkResponse({ standardSchema: HealthSchema })
  health(): Health {
    return { status: 'ok' };
  }

  @Get('readyz')
  @Public()
  @ApiOperation({ summary: 'Readiness: 200 when the store answers, else 503' })
  @ApiOkResponse({ standardSchema: HealthSchema })
  async ready(): Promise<Health> {
    try {
      await this.store.ping();
    } catch (error) {
      throw new StoreUnavailableError('the store does not answer', { cause: error });
    }
    return { status: 'ok' };
  }
}
