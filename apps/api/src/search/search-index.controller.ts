import { Controller, Get, HttpCode, Inject, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiCookieAuth,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { type SearchIndexQuery, SearchIndexQuerySchema, SearchIndexStatusSchema } from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { AdminOnly } from '../auth/auth-mode.decorator.js';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { PROCESS_HOLDER } from '../common/process-holder.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('search')
@ApiBearerAuth()
@ApiCookieAuth()
@AdminOnly()
@Controller('v1/search/index')
export class SearchIndexController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Get()
  @ApiOperation({
    summary: 'Search index status and integrity (admin); check=true compares the indexes with the messages now',
  })
  @ApiOkResponse({ standardSchema: SearchIndexStatusSchema })
  status(@Ctx() ctx: OperationContext, @Query({ schema: SearchIndexQuerySchema }) query: SearchIndexQuery) {
    return this.store.searchIndex.status(ctx, query.check);
  }

  @Post('rebuild')
  @Mutation()
  @HttpCode(202)
  @ApiOperation({
    summary: 'Rebuild the search indexes in the background (admin); one rebuild at a time across processes',
  })
  @ApiAcceptedResponse({ standardSchema: SearchIndexStatusSchema })
  rebuild(@Ctx() ctx: OperationContext) {
    return this.store.searchIndex.rebuild(ctx, PROCESS_HOLDER);
  }
}
