'use client';

import { useEffect, useRef, useState } from 'react';

export type FeedStatus = 'connecting' | 'live' | 'paused' | 'reconnecting' | 'unavailable';

interface FeedOptions<T> {
  /** The dashboard's proxy of the API feed (`/live/…`), without `after`. */
  href: string;
  /** The message id the page was rendered up to: the feed starts after it (null: from now). */
  after: number | null;
  /** The event that carries rows (`message`, `session`) and the id each row resumes after. */
  event: string;
  idOf: (row: T) => number;
  onRows: (rows: T[]) => void;
}

/**
 * An EventSource on a live feed, with pause: while paused the stream is closed; resuming opens it
 * after the last id seen, so nothing is repeated and nothing missed (the browser's own reconnects
 * send Last-Event-ID, which the API prefers over `after`). Rows arriving together are handed over
 * in one batch (one render).
 */
export function useFeed<T>({ href, after, event, idOf, onRows }: FeedOptions<T>) {
  const [status, setStatus] = useState<FeedStatus>('connecting');
  const [paused, setPaused] = useState(false);
  const [detail, setDetail] = useState<string | null>(null);
  const lastId = useRef<number | null>(after);
  const deliver = useRef(onRows);
  deliver.current = onRows;

  useEffect(() => {
    if (paused) {
      setStatus('paused');
      return;
    }
    setStatus('connecting');
    const separator = href.includes('?') ? '&' : '?';
    const source = new EventSource(lastId.current === null ? href : `${href}${separator}after=${lastId.current}`);
    let batch: T[] = [];
    let flush: ReturnType<typeof setTimeout> | undefined;
    source.onopen = () => setStatus('live');
    source.onerror = () => setStatus(source.readyState === EventSource.CLOSED ? 'unavailable' : 'reconnecting');
    source.addEventListener(event, (message) => {
      const row = JSON.parse((message as MessageEvent<string>).data) as T;
      const id = idOf(row);
      if (lastId.current !== null && id <= lastId.current) return;
      lastId.current = id;
      batch.push(row);
      flush ??= setTimeout(() => {
        const rows = batch;
        batch = [];
        flush = undefined;
        deliver.current(rows);
      }, 0);
    });
    source.addEventListener('bookmark', (message) => {
      const { highWater } = JSON.parse((message as MessageEvent<string>).data) as { highWater: number };
      // Everything up to it was covered: a resume after a pause starts there.
      lastId.current = Math.max(lastId.current ?? 0, highWater);
      setStatus('live');
    });
    source.addEventListener('unavailable', (message) => {
      const { detail: reason } = JSON.parse((message as MessageEvent<string>).data) as { detail: string };
      setStatus('unavailable');
      setDetail(reason);
      source.close();
    });
    return () => {
      clearTimeout(flush);
      if (batch.length > 0) deliver.current(batch);
      source.close();
    };
  }, [href, event, idOf, paused]);

  return { status, paused, detail, togglePaused: () => setPaused((current) => !current) };
}
