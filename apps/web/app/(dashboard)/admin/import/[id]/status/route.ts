import type { NextRequest } from 'next/server';
import { ApiProblemError, ApiUnreachableError, getImport } from '@/lib/api';

export const dynamic = 'force-dynamic';

const noStore = { 'cache-control': 'no-store' };

/**
 * One import run as the API reports it (GET /v1/imports/:id), for the Import page's replace
 * preview: it waits for the dry run's report before asking the user to confirm.
 */
export async function GET(_request: NextRequest, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await params;
  try {
    return Response.json(await getImport(id), { headers: noStore });
  } catch (error) {
    if (error instanceof ApiProblemError) {
      return Response.json(error.problem, {
        status: error.status,
        headers: { ...noStore, 'content-type': 'application/problem+json' },
      });
    }
    if (error instanceof ApiUnreachableError) {
      return Response.json(
        { type: 'about:blank', title: 'Unavailable', status: 503, code: 'store_unavailable', detail: error.message },
        { status: 503, headers: { ...noStore, 'content-type': 'application/problem+json' } },
      );
    }
    throw error;
  }
}
