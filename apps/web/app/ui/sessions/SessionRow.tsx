import type { SessionListItem } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, cx, ListItem, Timestamp } from '@/app/ui/common';
import { LabelChips } from '@/app/ui/labels/LabelChips';
import { formatCost, formatDuration, plural } from '@/lib/format';
import { sessionHref } from '@/lib/paths';
import { conversationMessages, lineageHint, sessionHeading, sessionStatus } from '@/lib/session-display';
import { BusyBadge } from './BusyNotice';
import { SourceChange } from './SourceChange';
import './sessions.css';

interface SessionRowProps {
  item: SessionListItem;
  showProfile: boolean;
  /** The id of the form the row's checkbox belongs to (multi-select); none: not selectable. */
  selectionForm?: string;
}

/** One logical conversation. The title link covers the row; everything else is plain text. */
export function SessionRow({ item, showProfile, selectionForm }: SessionRowProps) {
  const heading = sessionHeading(item);
  const status = sessionStatus(item);
  const lineage = lineageHint(item);
  return (
    <ListItem className={cx('session-row', selectionForm && 'session-row--selectable')}>
      {selectionForm ? (
        <input
          type="checkbox"
          className="session-row__check"
          name="ids"
          value={item.id}
          form={selectionForm}
          aria-label={`Select “${heading.text}” (${item.id})`}
        />
      ) : null}
      <div className="session-row__main">
        <h2 className="session-row__heading">
          <Link
            href={sessionHref(item.id)}
            className={cx('session-row__title', 'stretched-link', heading.untitled && 'session-row__title--untitled')}
          >
            {heading.text}
          </Link>
          {item.pinned ? <Badge tone="accent">Pinned</Badge> : null}
          {item.archived ? <Badge tone="warning">Archived</Badge> : null}
        </h2>
        {item.title && item.preview ? <p className="session-row__preview">{item.preview}</p> : null}
        <div className="session-row__meta meta-row">
          <span className="session-row__id">{item.id}</span>
          {showProfile ? <Badge>{item.profile}</Badge> : null}
          <SourceChange createdSource={item.createdSource} source={item.source} />
          {item.model ? <code className="session-row__model">{item.model}</code> : null}
          <LabelChips labels={item.labels ?? []} />
          {lineage ? (
            <span className="lineage-hint">
              <span aria-hidden="true">↳</span> {lineage}
            </span>
          ) : null}
        </div>
      </div>
      <div className="session-row__status">
        <Badge tone={status.tone} dot>
          {status.label}
        </Badge>
        {item.turn ? <BusyBadge turn={item.turn} /> : null}
        {status.reason ? <span>{status.reason}</span> : null}
      </div>
      <div className="session-row__stats">
        <Timestamp iso={item.lastActiveAt} />
        <span title="Messages of the whole conversation (every compression segment)" data-testid="row-messages">
          {plural(conversationMessages(item), 'message')}
        </span>
        <span title="Input + output tokens of the whole conversation, and its estimated cost">
          {plural(item.conversationUsage.totalTokens, 'token')} · {formatCost(item.conversationUsage.estimatedCostUsd)}
        </span>
        <span title="From the conversation's start to its end (or, while open, its last activity)">
          {formatDuration(item.durationMs)}
        </span>
      </div>
    </ListItem>
  );
}
