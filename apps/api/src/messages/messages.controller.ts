import { Body, Controller, Get, Inject, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type AppendMessagesRequest,
  AppendMessagesRequestSchema,
  AppendMessagesResponseSchema,
  type ListMessagesQuery,
  ListMessagesQuerySchema,
  MessagePageSchema,
  type ReplaceMessagesRequest,
  ReplaceMessagesRequestSchema,
  ReplaceMessagesResponseSchema,
} from '@statehouse/contracts';
import type { OperationContext, Preconditions as PreconditionValues, StateStore } from '@statehouse/state';
import {
  DestructiveHeaders,
  ExpectedGenerationHeader,
  IfMatchHeader,
  Mutation,
  TurnIdHeader,
} from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { Answers, IdParam } from '../common/operation.decorator.js';
import { Preconditions } from '../common/preconditions.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('messages')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/sessions/:id/messages')
export class MessagesController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Post()
  @Mutation()
  @IfMatchHeader(false)
  @ExpectedGenerationHeader(false)
  @TurnIdHeader()
  @ApiOperation({
    summary:
      'Append 1..1000 messages in one transaction (platformMessageId dedupes); under another holder’s live turn, present X-Turn-Id or X-Expected-Generation',
  })
  @ApiCreatedResponse({ standardSchema: AppendMessagesResponseSchema })
  append(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: AppendMessagesRequestSchema }) body: AppendMessagesRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.messages.append(ctx, id, body, preconditions);
  }

  @Put()
  @DestructiveHeaders()
  @Answers(
    'Replace the live transcript in one transaction: the active messages leave it (rewound, or with archive: compacted) and these become it; [] clears it',
    ReplaceMessagesResponseSchema,
  )
  replace(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Body({ schema: ReplaceMessagesRequestSchema }) body: ReplaceMessagesRequest,
    @Preconditions() preconditions: PreconditionValues,
  ) {
    return this.store.messages.replaceTranscript(ctx, id, body, preconditions);
  }

  @Get()
  @Answers('Read the transcript in id order (hidden and rewound rows only when asked)', MessagePageSchema)
  list(
    @Ctx() ctx: OperationContext,
    @IdParam() id: string,
    @Query({ schema: ListMessagesQuerySchema }) query: ListMessagesQuery,
  ) {
    return this.store.messages.list(ctx, id, query);
  }
}
