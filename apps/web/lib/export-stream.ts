import 'server-only';
import { EXPORT_FORMATS, type ExportFormat } from '@statehouse/contracts';
import { ApiProblemError, ApiUnreachableError } from '@/lib/api';

/** Route handlers that pass an API export (a download) on to the browser, streamed. */

export const exportFormatOf = (value: string | null): ExportFormat | null =>
  value === null ? 'jsonl' : (EXPORT_FORMATS as readonly string[]).includes(value) ? (value as ExportFormat) : null;

const PASSED_HEADERS = ['content-type', 'content-disposition'];

/** The API's answer passed through as it streams: its body, type and file name; a refusal as it came. */
export function passThroughExport(upstream: Response): Response {
  const headers = new Headers({ 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
  for (const name of PASSED_HEADERS) {
    const value = upstream.headers.get(name);
    if (value) headers.set(name, value);
  }
  return new Response(upstream.body, { status: upstream.status, headers });
}

/** A problem document for what went wrong before the stream began. */
export function exportProblem(error: unknown): Response {
  const problem = (status: number, detail: string) =>
    Response.json(
      { type: 'about:blank', title: 'Export failed', status, detail },
      { status, headers: { 'cache-control': 'no-store', 'content-type': 'application/problem+json' } },
    );
  if (error instanceof ApiProblemError) return problem(error.status, error.message);
  if (error instanceof ApiUnreachableError) return problem(503, error.message);
  throw error;
}
