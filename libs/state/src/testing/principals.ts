import type { Principal } from '@statehouse/contracts';
import type { OperationContext } from '../shared/context.js';

export const adminPrincipal: Principal = {
  kind: 'token',
  id: 'test-admin',
  name: 'test admin',
  role: 'admin',
  profiles: '*',
};

export function memberPrincipal(profiles: string[], id = 'test-member'): Principal {
  return { kind: 'token', id, name: id, role: 'member', profiles };
}

export function contextOf(principal: Principal): OperationContext {
  return { principal, channel: 'api' };
}
