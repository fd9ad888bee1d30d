import { resolve } from 'node:path';
import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type BackupStatus,
  BackupStatusSchema,
  JobRunListSchema,
  type JobRunQuery,
  JobRunQuerySchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { AdminOnly } from '../auth/auth-mode.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { API_CONFIG, STATE_STORE } from '../common/tokens.js';
import type { ApiConfig } from '../config.js';

@ApiTags('operations')
@ApiBearerAuth()
@ApiCookieAuth()
@AdminOnly()
@Controller('v1/ops')
export class OpsController {
  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  @Get('backup')
  @ApiOperation({ summary: 'The last backups (admin): recorded in the store, so every replica answers the same' })
  @ApiOkResponse({ standardSchema: BackupStatusSchema })
  backup(@Ctx() ctx: OperationContext): Promise<BackupStatus> {
    const schedule =
      this.config.backupIntervalSeconds > 0
        ? {
            intervalSeconds: this.config.backupIntervalSeconds,
            directory: resolve(this.config.backupDirectory),
            keep: this.config.backupKeep,
          }
        : null;
    return this.store.backups.status(ctx, schedule);
  }

  @Get('jobs')
  @ApiOperation({ summary: 'Recent scheduled job intervals (admin): who ran each, attempts, outcome' })
  @ApiOkResponse({ standardSchema: JobRunListSchema })
  async jobs(@Ctx() ctx: OperationContext, @Query({ schema: JobRunQuerySchema }) query: JobRunQuery) {
    return { items: await this.store.jobs.recent(ctx, query.limit, query.job) };
  }
}
