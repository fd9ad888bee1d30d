import { ListGatewaysQuerySchema } from '@statehouse/contracts';
import { listState } from './params';

/** The gateways page's URL: profile, page size and cursor. */
export const GATEWAY_LIST_KEYS = ['profile', 'limit', 'cursor'] as const;
export type GatewayListKey = (typeof GATEWAY_LIST_KEYS)[number];
export type GatewayListRaw = Partial<Record<GatewayListKey, string>>;

const gatewayList = listState('/gateways', GATEWAY_LIST_KEYS, ListGatewaysQuerySchema);
export const parseGatewayListState = gatewayList.parse;
export const gatewayListHref = gatewayList.href;
