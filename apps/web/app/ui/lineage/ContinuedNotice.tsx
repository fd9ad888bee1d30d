import type { LineageResponse } from '@statehouse/contracts';
import Link from 'next/link';
import { sessionHref } from '@/lib/paths';
import './lineage.css';

/** A compressed segment that is not the tip: say where the conversation went on. */
export function ContinuedNotice({ lineage }: { lineage: LineageResponse }) {
  const tipTitle = lineage.nodes.find((node) => node.id === lineage.tipId)?.title;
  return (
    <div className="continued-notice" role="note">
      <span>This is an earlier segment of a compressed conversation; it continues in</span>{' '}
      <Link href={sessionHref(lineage.tipId)}>{tipTitle ?? <code>{lineage.tipId}</code>}</Link>
      <span> (the tip).</span>{' '}
      <Link href={sessionHref(lineage.tipId, { view: 'conversation' })}>Read the whole conversation</Link>
    </div>
  );
}
