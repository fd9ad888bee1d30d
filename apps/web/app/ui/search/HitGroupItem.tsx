import Link from 'next/link';
import { List } from '@/app/ui/common';
import { plural } from '@/lib/format';
import { sessionHref } from '@/lib/paths';
import type { HitGroup } from '@/lib/search-state';
import { SearchHit } from './SearchHit';
import './search.css';

/** One conversation's hits on this page, under its title and how many matched in it. */
export function HitGroupItem({ group, showProfile }: { group: HitGroup; showProfile: boolean }) {
  const headingId = `hits-${group.tipSessionId}`;
  return (
    <li className="hit-group" aria-labelledby={headingId} data-conversation={group.tipSessionId}>
      <div className="hit-group__header">
        <h2 className="hit-group__title" id={headingId}>
          <Link href={sessionHref(group.tipSessionId)}>{group.title ?? group.tipSessionId}</Link>
        </h2>
        <span className="hit-group__count" data-testid="hit-group-count">
          {plural(group.hits.length, 'match', 'matches')}
        </span>
      </div>
      <List label={`Results in ${group.title ?? group.tipSessionId}`} className="search-results">
        {group.hits.map((hit) => (
          <SearchHit key={`${hit.sessionId}:${hit.messageId}`} hit={hit} showProfile={showProfile} />
        ))}
      </List>
    </li>
  );
}
