import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  type ConsumerAckRequest,
  ConsumerAckRequestSchema,
  ConsumerNameSchema,
  ReceiptConsumerSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { AdminOnly } from '../auth/auth-mode.decorator.js';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('deletion receipts')
@ApiBearerAuth()
@ApiCookieAuth()
@AdminOnly()
@Controller('v1/receipt-consumers')
export class ReceiptConsumersController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Put(':name')
  @Mutation()
  @ApiOperation({
    summary:
      'Register a consumer or acknowledge its cursor (admin; monotonic within a store epoch: a lower cursor → 409; 410 epoch_changed for a cursor of another epoch)',
  })
  @ApiOkResponse({ standardSchema: ReceiptConsumerSchema })
  acknowledge(
    @Ctx() ctx: OperationContext,
    @Param('name', { schema: ConsumerNameSchema }) name: string,
    @Body({ schema: ConsumerAckRequestSchema }) body: ConsumerAckRequest,
  ) {
    return this.store.receipts.acknowledge(ctx, name, body.cursor, body.epoch);
  }

  @Get()
  @ApiOperation({ summary: 'Registered consumers, who registered them and their cursors (admin)' })
  @ApiOkResponse({ standardSchema: ReceiptConsumerSchema.array() })
  list(@Ctx() ctx: OperationContext) {
    return this.store.receipts.listConsumers(ctx);
  }

  @Delete(':name')
  @Mutation()
  @HttpCode(204)
  @ApiOperation({ summary: 'Unregister a consumer (admin): it no longer holds safe reclamation back' })
  @ApiNoContentResponse()
  remove(@Ctx() ctx: OperationContext, @Param('name', { schema: ConsumerNameSchema }) name: string) {
    return this.store.receipts.deleteConsumer(ctx, name);
  }
}
