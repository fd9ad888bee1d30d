import { type SchedulePage, SchedulePageSchema } from '@statehouse/contracts';
import { request } from './client';

/** `/v1/sessions/:id/schedules`: a session's scheduled wake-ups (docs/domain.md §13), keyset paged. */

export function listSessionSchedules(sessionId: string, limit = 100): Promise<SchedulePage> {
  return request('GET /v1/sessions/{sessionId}/schedules', SchedulePageSchema, (api) =>
    api.GET('/v1/sessions/{sessionId}/schedules', { params: { path: { sessionId }, query: { limit } } }),
  );
}
