import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type SearchQuery, SearchQuerySchema, SearchResponseSchema } from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { Ctx } from '../common/context.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('search')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/search')
export class SearchController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Get()
  @ApiOperation({ summary: 'Search visible messages (word index; substring index for CJK and fragments)' })
  @ApiOkResponse({ standardSchema: SearchResponseSchema })
  search(@Ctx() ctx: OperationContext, @Query({ schema: SearchQuerySchema }) query: SearchQuery) {
    return this.store.search.search(ctx, query);
  }
}
