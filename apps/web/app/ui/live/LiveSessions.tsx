'use client';

import type { SessionChangeEvent } from '@statehouse/contracts';
import { useRouter } from 'next/navigation';
import { useEffect, useRef, useState, useTransition } from 'react';
import { LiveStatus } from './LiveStatus';
import { useFeed } from './use-feed';
import './live.css';

/** At most one refresh of the list this often, however fast messages arrive. */
const REFRESH_EVERY_MS = 1000;

interface LiveSessionsProps {
  /** The profile the list shows (else every profile the user may read). */
  profile: string | null;
}

const lastMessageId = (change: SessionChangeEvent) => change.lastMessageId;

/**
 * Keeps the sessions list current: the sessions feed says which sessions got messages, and the
 * list is re-rendered on the server in place (no reload: filters, sort and scroll stay), at most
 * once a second. The status names the sessions that changed.
 */
export function LiveSessions({ profile }: LiveSessionsProps) {
  const router = useRouter();
  const [, startRefresh] = useTransition();
  const [changed, setChanged] = useState<string[]>([]);
  const pending = useRef(false);
  const lastRefresh = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const feed = useFeed<SessionChangeEvent>({
    href: `/live/sessions${profile ? `?profile=${encodeURIComponent(profile)}` : ''}`,
    // From when the page connects: a list refresh shows whatever came before anyway.
    after: null,
    event: 'session',
    idOf: lastMessageId,
    onRows: (rows) => {
      setChanged((current) => [...new Set([...rows.map((row) => row.title ?? row.sessionId), ...current])].slice(0, 3));
      pending.current = true;
      if (timer.current) return;
      const wait = Math.max(0, lastRefresh.current + REFRESH_EVERY_MS - Date.now());
      timer.current = setTimeout(() => {
        timer.current = undefined;
        pending.current = false;
        lastRefresh.current = Date.now();
        startRefresh(() => router.refresh());
      }, wait);
    },
  });
  useEffect(() => () => clearTimeout(timer.current), []);
  return (
    <LiveStatus
      status={feed.status}
      paused={feed.paused}
      onToggle={feed.togglePaused}
      news={changed.length > 0 ? `updated: ${changed.join(', ')}` : null}
      detail={feed.detail}
      subject="updates"
      testId="live-sessions"
    />
  );
}
