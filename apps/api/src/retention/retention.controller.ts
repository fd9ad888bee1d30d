import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type MaintenanceRequest,
  MaintenanceRequestSchema,
  MaintenanceResultSchema,
  type NeverActivePruneRequest,
  NeverActivePruneRequestSchema,
  ProfileNameSchema,
  type PutRetentionPolicyRequest,
  PutRetentionPolicyRequestSchema,
  RetentionPolicySchema,
  type RetentionPruneRequest,
  RetentionPruneRequestSchema,
  type SearchOptimizeRequest,
  SearchOptimizeRequestSchema,
  SearchOptimizeResultSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { AdminOnly } from '../auth/auth-mode.decorator.js';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('retention and maintenance')
@ApiBearerAuth()
@ApiCookieAuth()
@AdminOnly()
@Controller('v1')
export class RetentionController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Post('retention/prune')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({ summary: 'Prune sessions ended before a cutoff (admin); pinned kept, whole lineages only' })
  @ApiOkResponse({ standardSchema: MaintenanceResultSchema })
  prune(@Ctx() ctx: OperationContext, @Body({ schema: RetentionPruneRequestSchema }) body: RetentionPruneRequest) {
    return this.store.deletion.retentionPrune(ctx, body);
  }

  @Get('retention/policies')
  @ApiOperation({ summary: 'Retention window per profile (admin)' })
  @ApiOkResponse({ standardSchema: RetentionPolicySchema.array() })
  policies(@Ctx() ctx: OperationContext) {
    return this.store.retention.list(ctx);
  }

  @Put('retention/policies/:profile')
  @Mutation()
  @ApiOperation({ summary: 'Set (or clear with null) a profile retention window in days (admin)' })
  @ApiOkResponse({ standardSchema: RetentionPolicySchema })
  putPolicy(
    @Ctx() ctx: OperationContext,
    @Param('profile', { schema: ProfileNameSchema }) profile: string,
    @Body({ schema: PutRetentionPolicyRequestSchema }) body: PutRetentionPolicyRequest,
  ) {
    return this.store.retention.put(ctx, profile, body.retentionDays);
  }

  @Post('maintenance/empty-sweep')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove ended sessions without messages that are not archived (admin)' })
  @ApiOkResponse({ standardSchema: MaintenanceResultSchema })
  emptySweep(@Ctx() ctx: OperationContext, @Body({ schema: MaintenanceRequestSchema }) body: MaintenanceRequest) {
    return this.store.deletion.emptySweep(ctx, body.dryRun, body.profile);
  }

  @Post('maintenance/ghost-prune')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove untitled, ended, empty sessions older than 24 h (admin)' })
  @ApiOkResponse({ standardSchema: MaintenanceResultSchema })
  ghostPrune(@Ctx() ctx: OperationContext, @Body({ schema: MaintenanceRequestSchema }) body: MaintenanceRequest) {
    return this.store.deletion.ghostPrune(ctx, body.dryRun, body.profile);
  }

  @Post('maintenance/search-optimize')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Optimize both search indexes now (admin): merge their segments (SQLite) or flush pending entries (PostgreSQL); vacuum returns free pages',
  })
  @ApiOkResponse({ standardSchema: SearchOptimizeResultSchema })
  searchOptimize(
    @Ctx() ctx: OperationContext,
    @Body({ schema: SearchOptimizeRequestSchema }) body: SearchOptimizeRequest,
  ) {
    return this.store.maintenance.optimizeNow(ctx, body);
  }

  @Post('maintenance/never-active-prune')
  @Mutation()
  @HttpCode(200)
  @ApiOperation({ summary: 'Remove keyed sessions that never saw a message, older than the window (admin)' })
  @ApiOkResponse({ standardSchema: MaintenanceResultSchema })
  neverActivePrune(
    @Ctx() ctx: OperationContext,
    @Body({ schema: NeverActivePruneRequestSchema }) body: NeverActivePruneRequest,
  ) {
    return this.store.deletion.neverActivePrune(ctx, body);
  }
}
