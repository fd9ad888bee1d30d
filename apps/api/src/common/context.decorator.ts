import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { type OperationContext, UnauthenticatedError } from '@statehouse/state';
import type { StatehouseRequest } from './request.js';

/** The operation context every domain service takes first: principal, channel, idempotency claim. */
export const Ctx = createParamDecorator((_data: unknown, context: ExecutionContext): OperationContext => {
  const request = context.switchToHttp().getRequest<StatehouseRequest>();
  if (!request.user) throw new UnauthenticatedError();
  return {
    principal: request.user,
    channel: request.authMethod === 'cookie' ? 'dashboard' : 'api',
    idempotency: request.idempotency,
    requestId: request.id,
  };
});
