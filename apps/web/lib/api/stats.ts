import {
  type DeletionStatsQuery,
  type DeletionStatsResponse,
  DeletionStatsResponseSchema,
  type ReceiptLag,
  ReceiptLagSchema,
  type ReplyLatencyQuery,
  type ReplyLatencyStats,
  ReplyLatencyStatsSchema,
  type StatsExtent,
  type StatsExtentQuery,
  StatsExtentSchema,
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
  return request('GET /v1/stats/summary', StatsSummarySchema, (api) =>
    api.GET('/v1/stats/summary', { params: { query } }),
  );
}

export function getUsage(query: Partial<UsageQuery>): Promise<UsageResponse> {
  return request('GET /v1/stats/usage', UsageResponseSchema, (api) =>
    api.GET('/v1/stats/usage', { params: { query } }),
  );
}

export function getDeletionStats(query: Partial<DeletionStatsQuery>): Promise<DeletionStatsResponse> {
  return request('GET /v1/stats/deletions', DeletionStatsResponseSchema, (api) =>
    api.GET('/v1/stats/deletions', { params: { query } }),
  );
}

/** Where the figures begin: what "all time" starts from. */
export function getReplyLatency(query: Partial<ReplyLatencyQuery>): Promise<ReplyLatencyStats> {
  return request('GET /v1/stats/latency', ReplyLatencyStatsSchema, (api) =>
    api.GET('/v1/stats/latency', { params: { query } }),
  );
}

export function getStatsExtent(query: Partial<StatsExtentQuery>): Promise<StatsExtent> {
  return request('GET /v1/stats/extent', StatsExtentSchema, (api) =>
    api.GET('/v1/stats/extent', { params: { query } }),
  );
}

/** Administrators only. */
export function getReceiptLag(): Promise<ReceiptLag> {
  return request('GET /v1/stats/receipt-lag', ReceiptLagSchema, (api) => api.GET('/v1/stats/receipt-lag'));
}
