import { Body, Controller, Get, Inject, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  type ConsumerAckRequest,
  ConsumerAckRequestSchema,
  ConsumerNameSchema,
  ReceiptConsumerSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('deletion receipts')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/receipt-consumers')
export class ReceiptConsumersController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Put(':name')
  @Mutation()
  @ApiOperation({ summary: 'Acknowledge a consumer cursor (monotonic: a lower cursor → 409)' })
  @ApiOkResponse({ standardSchema: ReceiptConsumerSchema })
  acknowledge(
    @Ctx() ctx: OperationContext,
    @Param('name', { schema: ConsumerNameSchema }) name: string,
    @Body({ schema: ConsumerAckRequestSchema }) body: ConsumerAckRequest,
  ) {
    return this.store.receipts.acknowledge(ctx, name, body.cursor);
  }

  @Get()
  @ApiOperation({ summary: 'Registered consumers and their cursors (admin)' })
  @ApiOkResponse({ standardSchema: ReceiptConsumerSchema.array() })
  list(@Ctx() ctx: OperationContext) {
    return this.store.receipts.listConsumers(ctx);
  }
}
