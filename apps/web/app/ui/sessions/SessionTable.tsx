import type { SessionListItem } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, Table, Timestamp } from '@/app/ui/common';
import { formatCost, formatDuration, formatNumber } from '@/lib/format';
import { sessionHref } from '@/lib/paths';
import { conversationMessages, sessionHeading, sessionStatus } from '@/lib/session-display';
import { SourceChange } from './SourceChange';
import './sessions.css';

/** The compact list: one line per conversation, the figures in columns (`view=compact`), each the whole conversation's. */
export function SessionTable({ items, showProfile }: { items: SessionListItem[]; showProfile: boolean }) {
  return (
    <Table
      caption="Sessions"
      captionHidden
      className="sessions-table"
      head={[
        'Title',
        ...(showProfile ? ['Profile'] : []),
        'Source',
        'Model',
        'Status',
        'Messages',
        'Tokens',
        'Cost',
        'Duration',
        'Last active',
      ]}
      numericColumns={showProfile ? [5, 6, 7, 8] : [4, 5, 6, 7]}
      rows={items.map((item) => {
        const status = sessionStatus(item);
        return [
          <Link key="title" href={sessionHref(item.id)} className="sessions-table__title">
            {sessionHeading(item).text}
          </Link>,
          ...(showProfile ? [item.profile] : []),
          <SourceChange key="source" createdSource={item.createdSource} source={item.source} plain />,
          item.model ?? '—',
          <Badge key="status" tone={status.tone} dot>
            {status.label}
          </Badge>,
          formatNumber(conversationMessages(item)),
          formatNumber(item.conversationUsage.totalTokens),
          formatCost(item.conversationUsage.estimatedCostUsd),
          formatDuration(item.durationMs),
          <Timestamp key="active" iso={item.lastActiveAt} />,
        ];
      })}
    />
  );
}
