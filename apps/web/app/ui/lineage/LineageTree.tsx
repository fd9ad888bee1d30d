import { LINEAGE_KINDS, type LineageResponse } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, cx } from '@/app/ui/common';
import { plural } from '@/lib/format';
import {
  buildLineage,
  EDGE_LABELS,
  type LineageSpine,
  type LineageSpineItem,
  nodeLabel,
  relationText,
} from '@/lib/lineage';
import { sessionHref } from '@/lib/paths';
import { EdgeChip } from './EdgeChip';
import './lineage.css';
import { endReasonLabel } from '@/lib/wording';

interface LineageTreeProps {
  lineage: LineageResponse;
  /** The session the page shows: highlighted, and marked `aria-current`. */
  currentId: string;
}

/**
 * The whole lineage, rendered on the server as nested lists: every node is a link whose accessible
 * name starts with its relation ("Branch of …"), and every edge carries its kind as text and colour.
 */
export function LineageTree({ lineage, currentId }: LineageTreeProps) {
  const spines = buildLineage(lineage);
  return (
    <div className="lineage">
      <EdgeLegend />
      <div className="lineage__tree">
        {spines.map((spine) => (
          <Spine
            key={spine.items[0].node.id}
            spine={spine}
            lineage={lineage}
            currentId={currentId}
            label={`Lineage from ${nodeLabel(spine.items[0].node)}`}
          />
        ))}
      </div>
      {lineage.truncated ? (
        <p className="lineage__note">This lineage is larger than the walk bound; only part of it is shown.</p>
      ) : null}
    </div>
  );
}

export function EdgeLegend() {
  return (
    <ul className="lineage-legend" aria-label="Edge kinds">
      {LINEAGE_KINDS.map((kind) => (
        <li key={kind} className={`lineage-legend__item edge--${kind}`} title={EDGE_LABELS[kind].description}>
          <span className="lineage-legend__swatch" aria-hidden="true" />
          <span className="lineage-legend__label">{EDGE_LABELS[kind].label}</span>
          <span className="visually-hidden">: {EDGE_LABELS[kind].description}</span>
        </li>
      ))}
    </ul>
  );
}

function Spine({
  spine,
  lineage,
  currentId,
  label,
}: {
  spine: LineageSpine;
  lineage: LineageResponse;
  currentId: string;
  label?: string;
}) {
  return (
    <ol className="lineage-spine" aria-label={label}>
      {spine.items.map((item, index) => (
        <SpineItem key={item.node.id} item={item} first={index === 0} lineage={lineage} currentId={currentId} />
      ))}
    </ol>
  );
}

function SpineItem({
  item,
  first,
  lineage,
  currentId,
}: {
  item: LineageSpineItem;
  first: boolean;
  lineage: LineageResponse;
  currentId: string;
}) {
  const { node } = item;
  const current = node.id === currentId;
  const label = nodeLabel(node);
  const isTip = node.id === lineage.tipId && lineage.chain.length > 1;
  const isChainRoot = node.id === lineage.rootId && lineage.chain.length > 1;
  return (
    <li className={cx('lineage-item', item.edge ? `edge--${item.edge}` : 'lineage-item--root')}>
      {item.edge && !first ? (
        <div className="lineage-item__edge">
          <EdgeChip kind={item.edge} />
        </div>
      ) : null}
      <div className={cx('lineage-node', current && 'lineage-node--current', node.busy && 'lineage-node--busy')}>
        {item.edge && first ? (
          <div className="lineage-node__edge meta-row">
            <EdgeChip kind={item.edge} />
            <span className="lineage-node__from">
              of <code>{item.parent?.id}</code>
            </span>
          </div>
        ) : null}
        <div className="lineage-node__head">
          <Link
            href={sessionHref(node.id)}
            className={cx('lineage-node__link', 'stretched-link', !node.title && 'lineage-node__link--id')}
            aria-current={current ? 'page' : undefined}
            data-node-id={node.id}
          >
            <span className="visually-hidden">{relationText(item)}: </span>
            {label}
          </Link>
          {current ? <Badge tone="accent">This session</Badge> : null}
          {isChainRoot ? <Badge>Root</Badge> : null}
          {isTip ? <Badge tone="info">Tip</Badge> : null}
        </div>
        <div className="lineage-node__meta meta-row">
          {node.title ? <code className="lineage-node__id">{node.id}</code> : null}
          {node.endedAt ? (
            <Badge dot title={node.endReason ?? undefined}>
              Ended{node.endReason ? ` · ${endReasonLabel(node.endReason)}` : ''}
            </Badge>
          ) : (
            <Badge tone="success" dot>
              Open
            </Badge>
          )}
          <span>{plural(node.messageCount, 'message')}</span>
          <span className="text-subtle">{node.source}</span>
          {node.busy ? (
            <Badge tone="warning" dot title="A turn is running: destructive operations are refused">
              Busy
            </Badge>
          ) : null}
        </div>
      </div>
      {item.offshoots.length > 0 ? (
        <ul className="lineage-offshoots" aria-label={`Started from ${label}`}>
          {item.offshoots.map((spine) => (
            <li key={spine.items[0].node.id} className={cx('lineage-offshoot', `edge--${spine.items[0].edge}`)}>
              <Spine spine={spine} lineage={lineage} currentId={currentId} />
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}
