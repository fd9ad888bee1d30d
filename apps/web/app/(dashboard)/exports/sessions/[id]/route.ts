import type { NextRequest } from 'next/server';
import { openSessionExport } from '@/lib/api';
import { exportFormatOf, exportProblem, passThroughExport } from '@/lib/export-stream';
import { decodeParam } from '@/lib/params';

export const dynamic = 'force-dynamic';

/** One conversation as a download (JSON lines or Markdown), streamed from GET /v1/sessions/{id}/export. */
export async function GET(request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  const format = exportFormatOf(request.nextUrl.searchParams.get('format'));
  if (!format) {
    return Response.json(
      { type: 'about:blank', title: 'Export refused', status: 400, detail: 'format: jsonl or markdown.' },
      { status: 400, headers: { 'content-type': 'application/problem+json' } },
    );
  }
  try {
    return passThroughExport(await openSessionExport(decodeParam(id), format, request.signal));
  } catch (error) {
    return exportProblem(error);
  }
}
