import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { IdSchema, SessionLabelListSchema } from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { Ctx } from '../common/context.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

/** The labels one session carries (docs/api.md, "Labels"); they are changed through the label. */
@ApiTags('labels')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/sessions/:id/labels')
export class SessionLabelsController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Get()
  @ApiOperation({ summary: "The session's labels, by name" })
  @ApiOkResponse({ standardSchema: SessionLabelListSchema })
  list(@Ctx() ctx: OperationContext, @Param('id', { schema: IdSchema }) id: string) {
    return this.store.labels.ofSession(ctx, id);
  }
}
