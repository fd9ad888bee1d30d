import type { LineageKind, LineageNode, LineageResponse } from '@statehouse/contracts';

/**
 * The lineage tree as the dashboard draws it. A compression chain is one conversation, so it is a
 * vertical *spine* (root → tip, never indented however long it gets); branch, reset and delegate
 * children start spines of their own, nested under the node they came from.
 */
export interface LineageSpine {
  items: LineageSpineItem[];
}

export interface LineageSpineItem {
  node: LineageNode;
  /** The edge from the parent: `compression` inside a spine, the offshoot's kind at a spine's start. */
  edge: LineageKind | null;
  /** The node this one came from (its parent in the tree). */
  parent: LineageNode | null;
  offshoots: LineageSpine[];
}

export const EDGE_LABELS: Record<LineageKind, { label: string; description: string }> = {
  compression: { label: 'compression', description: 'the conversation continues in a compressed segment' },
  branch: { label: 'branch', description: 'a copy that diverges from this point' },
  reset: { label: 'reset', description: 'a new conversation on the same chat' },
  delegate: { label: 'delegate', description: 'a sub-agent helper, deleted with its parent' },
};

/** The first words of a node's accessible name: how it relates to the node it came from. */
export function relationText(item: Pick<LineageSpineItem, 'edge' | 'parent'>): string {
  const parent = item.parent ? nodeLabel(item.parent) : null;
  if (!item.edge || !parent) return 'Root of the lineage';
  switch (item.edge) {
    case 'compression':
      return `Compression continuation of ${parent}`;
    case 'branch':
      return `Branch of ${parent}`;
    case 'reset':
      return `Reset successor of ${parent}`;
    case 'delegate':
      return `Delegate (sub-agent) of ${parent}`;
  }
}

export function nodeLabel(node: Pick<LineageNode, 'id' | 'title'>): string {
  return node.title ?? node.id;
}

const WALK_BOUND = 1000;

/**
 * Builds the spines from the API's nodes and edges, starting at the top of the tree. Defensive like
 * every walk over lineage (docs/domain.md §3): bounded and cycle-guarded; nodes the walk cannot reach from the
 * top (a truncated answer) become extra roots rather than disappearing.
 */
export function buildLineage(lineage: LineageResponse): LineageSpine[] {
  const byId = new Map(lineage.nodes.map((node) => [node.id, node]));
  const children = new Map<string, { node: LineageNode; kind: LineageKind }[]>();
  for (const edge of lineage.edges) {
    const child = byId.get(edge.to);
    if (!child || !byId.has(edge.from)) continue;
    const list = children.get(edge.from) ?? [];
    list.push({ node: child, kind: edge.kind });
    children.set(edge.from, list);
  }
  for (const list of children.values()) list.sort((a, b) => a.node.startedAt.localeCompare(b.node.startedAt));
  const inChain = new Set(lineage.chain);
  const seen = new Set<string>();
  let steps = 0;

  /** docs/domain.md §3: prefer a child that is in the known chain, then one ended by compression, then open, then the freshest. */
  function continuation(id: string): LineageNode | null {
    const candidates = (children.get(id) ?? []).filter((child) => child.kind === 'compression').map((c) => c.node);
    if (candidates.length === 0) return null;
    const rank = (node: LineageNode) =>
      inChain.has(node.id) ? 0 : node.endReason === 'compression' ? 1 : node.endedAt === null ? 2 : 3;
    return [...candidates].sort((a, b) => rank(a) - rank(b) || b.startedAt.localeCompare(a.startedAt))[0];
  }

  function spine(start: LineageNode, edge: LineageKind | null, parent: LineageNode | null): LineageSpine {
    const items: LineageSpineItem[] = [];
    let current: LineageNode | null = start;
    let incoming = edge;
    let from = parent;
    while (current && !seen.has(current.id) && steps++ < WALK_BOUND) {
      seen.add(current.id);
      const next = continuation(current.id);
      const offshootNodes = (children.get(current.id) ?? []).filter((child) => child.node.id !== next?.id);
      const item: LineageSpineItem = { node: current, edge: incoming, parent: from, offshoots: [] };
      items.push(item);
      for (const child of offshootNodes) {
        if (!seen.has(child.node.id)) item.offshoots.push(spine(child.node, child.kind, current));
      }
      from = current;
      incoming = 'compression';
      current = next;
    }
    return { items };
  }

  const spines: LineageSpine[] = [];
  const top = byId.get(lineage.treeRootId) ?? byId.get(lineage.rootId) ?? lineage.nodes[0];
  if (top) spines.push(spine(top, null, null));
  for (const node of lineage.nodes) {
    if (!seen.has(node.id)) {
      const parent = node.parentSessionId ? (byId.get(node.parentSessionId) ?? null) : null;
      spines.push(spine(node, parent ? node.lineageKind : null, parent));
    }
  }
  return spines.filter((entry) => entry.items.length > 0);
}

/** Counts per edge kind, for the summary line above the tree. */
export function edgeCounts(lineage: LineageResponse): Record<LineageKind, number> {
  const counts: Record<LineageKind, number> = { compression: 0, branch: 0, reset: 0, delegate: 0 };
  for (const edge of lineage.edges) counts[edge.kind] += 1;
  return counts;
}
