import type { NextRequest } from 'next/server';
import { openSessionListExport } from '@/lib/api';
import { exportFormatOf, exportProblem, passThroughExport } from '@/lib/export-stream';
import { parseSessionListState } from '@/lib/session-list-state';

export const dynamic = 'force-dynamic';

/**
 * The sessions list as a download: the same URL keys as /sessions (filters, period, order), every
 * matching row (not one page), streamed from GET /v1/sessions/export as it is read.
 */
export async function GET(request: NextRequest): Promise<Response> {
  const searchParams = Object.fromEntries(request.nextUrl.searchParams);
  const format = exportFormatOf(request.nextUrl.searchParams.get('format'));
  const state = parseSessionListState(searchParams);
  if (!format || !state.ok) {
    const detail = !format ? 'format: jsonl or markdown.' : state.ok ? '' : state.issues.join(' ');
    return Response.json(
      { type: 'about:blank', title: 'Export refused', status: 400, detail },
      { status: 400, headers: { 'content-type': 'application/problem+json' } },
    );
  }
  const { cursor: _cursor, limit: _limit, ...query } = state.query;
  try {
    return passThroughExport(await openSessionListExport(query, format, request.signal));
  } catch (error) {
    return exportProblem(error);
  }
}
