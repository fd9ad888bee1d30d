import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiProduces } from '@nestjs/swagger';

/**
 * Facts about a route that only its handler or its domain service knows, stated where the route is
 * declared so the OpenAPI document can answer for them (apps/api/src/openapi/problem-scopes.ts).
 * Each one is a fact about behaviour, never a list of problem codes.
 */

export const THROTTLED = 'statehouse:throttled';
/** The operation checks a password and is throttled like a login: `429 rate_limited` with `Retry-After`. */
export const Throttled = () => SetMetadata(THROTTLED, true);

export const STORE_FREE = 'statehouse:store-free';
/** The handler never touches the store (liveness): it cannot answer 503. */
export const StoreFree = () => SetMetadata(STORE_FREE, true);

export interface StreamEvent {
  /** What the event means and when it is sent. */
  description: string;
  /** The schema of `data` (JSON). */
  data: { readonly '~standard': unknown };
  /** What the event's `id` carries, when it has one (an EventSource sends it back as `Last-Event-ID`). */
  id?: string;
}

export const EVENT_STREAM = 'statehouse:event-stream';
/**
 * A `text/event-stream` answer and the events it sends (by `event:` name). The document describes
 * each event's `data` with its contract schema; the handler writes `event:`/`id:`/`data:` lines.
 */
export const EventStream = (events: Record<string, StreamEvent>) =>
  applyDecorators(SetMetadata(EVENT_STREAM, events), ApiProduces('text/event-stream'));
