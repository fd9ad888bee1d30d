import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCookieAuth,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import {
  type DeleteMetaQuery,
  DeleteMetaQuerySchema,
  type ListMetaQuery,
  ListMetaQuerySchema,
  MetaEntrySchema,
  MetaKeySchema,
  MetaPageSchema,
  ProfileNameSchema,
  type PutMetaRequest,
  PutMetaRequestSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { Mutation } from '../common/api-headers.decorator.js';
import { Ctx } from '../common/context.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

@ApiTags('profiles')
@ApiBearerAuth()
@ApiCookieAuth()
@Controller('v1/profiles/:name/meta')
export class ProfileMetaController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Get()
  @ApiOperation({ summary: "The profile's key/value entries, in key order (prefix filters exactly)" })
  @ApiOkResponse({ standardSchema: MetaPageSchema })
  list(
    @Ctx() ctx: OperationContext,
    @Param('name', { schema: ProfileNameSchema }) name: string,
    @Query({ schema: ListMetaQuerySchema }) query: ListMetaQuery,
  ) {
    return this.store.profileMeta.list(ctx, name, query);
  }

  @Get(':key')
  @ApiOperation({ summary: 'One entry of the profile’s key/value store (404 when absent)' })
  @ApiOkResponse({ standardSchema: MetaEntrySchema })
  get(
    @Ctx() ctx: OperationContext,
    @Param('name', { schema: ProfileNameSchema }) name: string,
    @Param('key', { schema: MetaKeySchema }) key: string,
  ) {
    return this.store.profileMeta.get(ctx, name, key);
  }

  @Put(':key')
  @Mutation()
  @ApiOperation({
    summary: 'Write an entry; with ifValue a compare-and-set (409 conflict when the stored value is another)',
  })
  @ApiOkResponse({ standardSchema: MetaEntrySchema })
  put(
    @Ctx() ctx: OperationContext,
    @Param('name', { schema: ProfileNameSchema }) name: string,
    @Param('key', { schema: MetaKeySchema }) key: string,
    @Body({ schema: PutMetaRequestSchema }) body: PutMetaRequest,
  ) {
    return this.store.profileMeta.put(ctx, name, key, body);
  }

  @Delete(':key')
  @Mutation()
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove an entry (404 when absent; with ifValue, 409 when the stored value is another)' })
  @ApiNoContentResponse()
  async remove(
    @Ctx() ctx: OperationContext,
    @Param('name', { schema: ProfileNameSchema }) name: string,
    @Param('key', { schema: MetaKeySchema }) key: string,
    @Query({ schema: DeleteMetaQuerySchema }) query: DeleteMetaQuery,
  ) {
    await this.store.profileMeta.delete(ctx, name, key, query);
  }
}
