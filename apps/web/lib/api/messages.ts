import { type ListMessagesQuery, type MessagePage, MessagePageSchema } from '@statehouse/contracts';
import { request, sessionPath } from './client';

/** `/v1/sessions/:id/messages`: a keyset page of one session's transcript. */

export type MessageListParams = Partial<ListMessagesQuery>;

export function listMessages(sessionId: string, params: MessageListParams): Promise<MessagePage> {
  return request(`${sessionPath(sessionId)}/messages`, MessagePageSchema, { query: { ...params } });
}
