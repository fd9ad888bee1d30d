import type { LineageKind } from '@statehouse/contracts';
import { isResetReason } from '../../domain/end-reasons.js';

/** What the classifier needs of a session (ids already mapped to Statehouse ids). */
export interface LineageNode {
  id: string;
  parentId: string | null;
  profile: string;
  source: string;
  createdSource: string;
  startedAt: number;
  endedAt: number | null;
  endReason: string | null;
  sessionKey: string | null;
  /** Lineage markers of the child's model_config (`_branched_from`, `_delegate_from`, `_reset_from`). */
  markers: { branch?: string; delegate?: string; reset?: string };
  /** Only for sessions already in Statehouse (parents outside the file). */
  delegated?: boolean;
}

export type EdgeVia =
  | 'marker'
  | 'compression'
  | 'legacy_branch'
  | 'legacy_reset'
  | 'subagent'
  | 'session_key'
  | 'unknown';

export interface LineageDecision {
  parentId: string | null;
  kind: LineageKind | null;
  via: EdgeVia | null;
}

export interface LineagePlan {
  decisions: Map<string, LineageDecision>;
  /** Parents before children; a conversation tree stays together (pre-order, by start). */
  order: string[];
  /** Sub-agent conversations: delegate children and compression continuations of them. */
  delegated: Set<string>;
  /** Per session: its peer's conversation generation when it began (reset-class ends before it). */
  conversationGeneration: Map<string, number>;
  /** Peers whose generation the file implies by its reset-class ends: `${source}\n${key}` → count. */
  impliedGenerations: Map<string, number>;
  warnings: string[];
}

/**
 * Classifies one child → parent edge by the precedence of Hermes' rules: explicit marker >
 * compression > legacy branch > legacy reset > sub-agent source; null when none matches.
 */
export function classifyEdge(child: LineageNode, parent: LineageNode): { kind: LineageKind | null; via: EdgeVia } {
  if (child.markers.branch === parent.id) return { kind: 'branch', via: 'marker' };
  if (child.markers.delegate === parent.id) return { kind: 'delegate', via: 'marker' };
  if (child.markers.reset === parent.id) return { kind: 'reset', via: 'marker' };
  if (parent.endReason === 'compression' && child.source !== 'tool') return { kind: 'compression', via: 'compression' };
  if (parent.endReason === 'branched' && parent.endedAt !== null && child.startedAt >= parent.endedAt) {
    return { kind: 'branch', via: 'legacy_branch' };
  }
  if (isResetReason(parent.endReason) && child.sessionKey && child.sessionKey === parent.sessionKey) {
    return { kind: 'reset', via: 'legacy_reset' };
  }
  if (child.source === 'subagent') return { kind: 'delegate', via: 'subagent' };
  return { kind: null, via: 'unknown' };
}

const byStart = (a: LineageNode, b: LineageNode) =>
  a.startedAt - b.startedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Plans the lineage of a whole file: classifies every parent edge, finds the reset predecessors
 * older gateways did not record (a parentless row on a session key follows the latest row of that
 * key that ended with a reset reason at or before it started), drops dangling and cyclic edges
 * (with a warning each), orders parents before children and marks sub-agent conversations.
 */
export function planLineage(nodes: readonly LineageNode[], existing: ReadonlyMap<string, LineageNode>): LineagePlan {
  const warnings: string[] = [];
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const decisions = new Map<string, LineageDecision>();
  const unknown = new Map<string, string>();

  // Reset-class ends per session key, in end order: the candidates for parentless successors.
  const resetsByKey = new Map<string, LineageNode[]>();
  for (const node of nodes) {
    if (node.sessionKey && node.endedAt !== null && isResetReason(node.endReason)) {
      const list = resetsByKey.get(node.sessionKey) ?? [];
      list.push(node);
      resetsByKey.set(node.sessionKey, list);
    }
  }
  for (const list of resetsByKey.values()) {
    list.sort((a, b) => a.endedAt! - b.endedAt! || (a.id < b.id ? -1 : 1));
  }

  for (const node of nodes) {
    if (node.parentId !== null) {
      if (node.parentId === node.id) {
        warnings.push(`session ${node.id}: names itself as its parent; imported as a root`);
        decisions.set(node.id, { parentId: null, kind: null, via: null });
        continue;
      }
      const parent = byId.get(node.parentId) ?? existing.get(node.parentId);
      if (!parent) {
        warnings.push(`session ${node.id}: parent ${node.parentId} is not in the file; imported as a root`);
        decisions.set(node.id, { parentId: null, kind: null, via: null });
        continue;
      }
      if (parent.profile !== node.profile) {
        warnings.push(
          `session ${node.id}: parent ${parent.id} belongs to profile ${parent.profile}, not ${node.profile}; imported as a root`,
        );
        decisions.set(node.id, { parentId: null, kind: null, via: null });
        continue;
      }
      const edge = classifyEdge(node, parent);
      if (edge.kind === null) {
        unknown.set(
          node.id,
          `session ${node.id}: the kind of its edge to ${parent.id} is unknown (parent ended ${parent.endReason ?? 'open'}, source ${node.source}); edge kept without a kind`,
        );
      }
      decisions.set(node.id, { parentId: parent.id, kind: edge.kind, via: edge.via });
      continue;
    }
    const predecessor = node.sessionKey ? latestResetBefore(resetsByKey.get(node.sessionKey), node) : undefined;
    if (predecessor && predecessor.profile === node.profile) {
      decisions.set(node.id, { parentId: predecessor.id, kind: 'reset', via: 'session_key' });
    } else {
      decisions.set(node.id, { parentId: null, kind: null, via: null });
    }
  }

  breakCycles(byId, decisions, warnings);
  // An edge of unknown kind is reported only if it survived the cycle check.
  for (const [id, warning] of unknown) if (decisions.get(id)?.parentId !== null) warnings.push(warning);
  const order = preorder(nodes, byId, decisions);

  const delegated = new Set<string>();
  for (const id of order) {
    const decision = decisions.get(id)!;
    if (decision.kind === 'delegate') delegated.add(id);
    else if (decision.kind === 'compression' && decision.parentId !== null) {
      const parentDelegated = byId.has(decision.parentId)
        ? delegated.has(decision.parentId)
        : existing.get(decision.parentId)?.delegated === true;
      if (parentDelegated) delegated.add(id);
    }
  }

  const { perSession, implied } = generations(nodes);
  return { decisions, order, delegated, conversationGeneration: perSession, impliedGenerations: implied, warnings };
}

/** The latest reset-class end on the key at or before `node` started (binary search on end time). */
function latestResetBefore(list: LineageNode[] | undefined, node: LineageNode): LineageNode | undefined {
  if (!list) return undefined;
  let low = 0;
  let high = list.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (list[mid].endedAt! <= node.startedAt) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  for (let i = found; i >= 0; i--) if (list[i].id !== node.id) return list[i];
  return undefined;
}

/**
 * A cycle in parent pointers has no root to import first. The edge of the cycle's oldest member
 * (earliest start) is dropped: it becomes the root of what was a loop.
 */
function breakCycles(byId: Map<string, LineageNode>, decisions: Map<string, LineageDecision>, warnings: string[]) {
  const settled = new Set<string>();
  for (const start of byId.keys()) {
    if (settled.has(start)) continue;
    const path: string[] = [];
    const onPath = new Set<string>();
    let current: string | null = start;
    while (current !== null && byId.has(current) && !settled.has(current)) {
      if (onPath.has(current)) {
        const cycle = path.slice(path.indexOf(current));
        const oldest = cycle.map((id) => byId.get(id)!).sort(byStart)[0];
        warnings.push(
          `lineage cycle ${[...cycle, current].join(' → ')}: the edge from ${oldest.id} to its parent was dropped`,
        );
        decisions.set(oldest.id, { parentId: null, kind: null, via: null });
        break;
      }
      onPath.add(current);
      path.push(current);
      current = decisions.get(current)?.parentId ?? null;
    }
    for (const id of path) settled.add(id);
  }
}

/** Parents first: roots by start, each followed by its subtree (children by start). Iterative. */
function preorder(
  nodes: readonly LineageNode[],
  byId: Map<string, LineageNode>,
  decisions: Map<string, LineageDecision>,
): string[] {
  const children = new Map<string, LineageNode[]>();
  const roots: LineageNode[] = [];
  for (const node of nodes) {
    const parentId = decisions.get(node.id)?.parentId ?? null;
    if (parentId !== null && byId.has(parentId)) {
      const list = children.get(parentId) ?? [];
      list.push(node);
      children.set(parentId, list);
    } else {
      roots.push(node);
    }
  }
  const order: string[] = [];
  const stack = roots.sort(byStart).reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    order.push(node.id);
    const kids = children.get(node.id);
    if (kids) stack.push(...kids.sort(byStart).reverse());
  }
  return order;
}

/**
 * Conversation generations implied by the file: each reset-class end on a (first source, key)
 * peer is one boundary; a session began in the generation of the boundaries before its start.
 */
function generations(nodes: readonly LineageNode[]) {
  const endsByPeer = new Map<string, number[]>();
  for (const node of nodes) {
    if (!node.sessionKey || node.endedAt === null || !isResetReason(node.endReason)) continue;
    const peer = `${node.createdSource}\n${node.sessionKey}`;
    const list = endsByPeer.get(peer) ?? [];
    list.push(node.endedAt);
    endsByPeer.set(peer, list);
  }
  for (const list of endsByPeer.values()) list.sort((a, b) => a - b);
  const perSession = new Map<string, number>();
  for (const node of nodes) {
    if (!node.sessionKey) continue;
    const ends = endsByPeer.get(`${node.createdSource}\n${node.sessionKey}`);
    if (!ends) continue;
    let count = 0;
    while (count < ends.length && ends[count] <= node.startedAt) count++;
    if (count > 0) perSession.set(node.id, count);
  }
  return { perSession, implied: new Map([...endsByPeer].map(([peer, ends]) => [peer, ends.length])) };
}
