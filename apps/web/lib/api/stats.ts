import {
  type DeletionStatsQuery,
  type DeletionStatsResponse,
  DeletionStatsResponseSchema,
  type ReceiptLag,
  ReceiptLagSchema,
  type StatsSummary,
  type StatsSummaryQuery,
  StatsSummarySchema,
  type UsageQuery,
  type UsageResponse,
  UsageResponseSchema,
} from '@statehouse/contracts';
import { request } from './client';

/** `/v1/stats`: the overview's figures (docs/stats.md), owner-fenced by the API. */

export function getStatsSummary(query: Partial<StatsSummaryQuery>): Promise<StatsSummary> {
  return request('/v1/stats/summary', StatsSummarySchema, { query: { ...query } });
}

export function getUsage(query: Partial<UsageQuery>): Promise<UsageResponse> {
  return request('/v1/stats/usage', UsageResponseSchema, { query: { ...query } });
}

export function getDeletionStats(query: Partial<DeletionStatsQuery>): Promise<DeletionStatsResponse> {
  return request('/v1/stats/deletions', DeletionStatsResponseSchema, { query: { ...query } });
}

/** Administrators only. */
export function getReceiptLag(): Promise<ReceiptLag> {
  return request('/v1/stats/receipt-lag', ReceiptLagSchema);
}
