import { Body, Controller, Inject, Param, Patch } from '@nestjs/common';
import { ApiBearerAuth, ApiExcludeController, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  IdSchema,
  type TestMessagePatch,
  TestMessagePatchSchema,
  TestPatchResultSchema,
  type TestSessionPatch,
  TestSessionPatchSchema,
} from '@statehouse/contracts';
import type { OperationContext, StateStore } from '@statehouse/state';
import { Ctx } from '../common/context.decorator.js';
import { STATE_STORE } from '../common/tokens.js';

/**
 * Test hooks (docs/api.md, "Test hooks"): registered only when the API runs with
 * `STATEHOUSE_TEST_HOOKS=1`, and never part of the published API document.
 */
@ApiTags('testing')
@ApiBearerAuth()
@ApiExcludeController()
@Controller('v1/testing')
export class TestingController {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  @Patch('sessions/:id')
  @ApiOperation({ summary: 'Overwrite stored values of a session without any rule (admin, tests only)' })
  @ApiOkResponse({ standardSchema: TestPatchResultSchema })
  patchSession(
    @Ctx() ctx: OperationContext,
    @Param('id', { schema: IdSchema }) id: string,
    @Body({ schema: TestSessionPatchSchema }) body: TestSessionPatch,
  ) {
    return this.store.testHooks.patchSession(ctx, id, body);
  }

  @Patch('messages')
  @ApiOperation({ summary: 'Overwrite the time or liveness of matching messages (admin, tests only)' })
  @ApiOkResponse({ standardSchema: TestPatchResultSchema })
  patchMessages(@Ctx() ctx: OperationContext, @Body({ schema: TestMessagePatchSchema }) body: TestMessagePatch) {
    return this.store.testHooks.patchMessages(ctx, body);
  }
}
