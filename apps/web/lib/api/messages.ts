import { type ListMessagesQuery, type MessagePage, MessagePageSchema } from '@statehouse/contracts';
import { request, wireQuery } from './client';

/** `/v1/sessions/:id/messages`: a keyset page of one session's transcript. */

export type MessageListParams = Partial<ListMessagesQuery>;

export function listMessages(sessionId: string, params: MessageListParams): Promise<MessagePage> {
  return request('GET /v1/sessions/{id}/messages', MessagePageSchema, (api) =>
    api.GET('/v1/sessions/{id}/messages', { params: { path: { id: sessionId }, query: wireQuery(params) } }),
  );
}
