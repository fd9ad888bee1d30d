import { describe, expect, it } from 'vitest';
import { classifyEdge, type LineageNode, planLineage } from './hermes-lineage.js';

const node = (id: string, fields: Partial<LineageNode> = {}): LineageNode => ({
  id,
  parentId: null,
  profile: 'p',
  source: 'cli',
  createdSource: fields.source ?? 'cli',
  startedAt: 1000,
  endedAt: null,
  endReason: null,
  sessionKey: null,
  markers: {},
  ...fields,
});

describe('edge kinds follow the precedence of the Hermes rules', () => {
  const compressed = node('parent', { endedAt: 2000, endReason: 'compression', sessionKey: 'k' });

  it('an explicit marker naming the parent wins over everything', () => {
    const child = node('child', { parentId: 'parent', source: 'subagent', markers: { branch: 'parent' } });
    expect(classifyEdge(child, compressed)).toEqual({ kind: 'branch', via: 'marker' });
    expect(classifyEdge({ ...child, markers: { delegate: 'parent' } }, compressed).kind).toBe('delegate');
    expect(classifyEdge({ ...child, markers: { reset: 'parent' } }, compressed).kind).toBe('reset');
  });

  it('a marker naming another row was inherited: the next rule decides', () => {
    const child = node('child', { parentId: 'parent', markers: { branch: 'grandparent' } });
    expect(classifyEdge(child, compressed)).toEqual({ kind: 'compression', via: 'compression' });
  });

  it('compression, except for a tool child', () => {
    expect(classifyEdge(node('c', { parentId: 'parent' }), compressed).kind).toBe('compression');
    expect(classifyEdge(node('c', { parentId: 'parent', source: 'tool' }), compressed)).toEqual({
      kind: null,
      via: 'unknown',
    });
  });

  it('legacy branch only for a child that started at or after the parent ended', () => {
    const branched = node('parent', { endedAt: 2000, endReason: 'branched' });
    expect(classifyEdge(node('c', { startedAt: 2000 }), branched).kind).toBe('branch');
    expect(classifyEdge(node('c', { startedAt: 1999 }), branched).kind).toBeNull();
  });

  it('legacy reset needs the same non-empty session key', () => {
    const reset = node('parent', { endedAt: 2000, endReason: 'idle', sessionKey: 'k' });
    expect(classifyEdge(node('c', { sessionKey: 'k' }), reset).kind).toBe('reset');
    expect(classifyEdge(node('c', { sessionKey: 'other' }), reset).kind).toBeNull();
    expect(classifyEdge(node('c', { sessionKey: null }), { ...reset, sessionKey: null }).kind).toBeNull();
  });

  it('a sub-agent child is a delegate when nothing before matched', () => {
    expect(classifyEdge(node('c', { source: 'subagent' }), node('parent')).kind).toBe('delegate');
  });
});

describe('planning a whole file', () => {
  it('finds the reset predecessor of a parentless row by session key: the latest reset end at or before its start', () => {
    const plan = planLineage(
      [
        node('a', { sessionKey: 'k', startedAt: 0, endedAt: 100, endReason: 'session_reset' }),
        node('b', { sessionKey: 'k', startedAt: 100, endedAt: 200, endReason: 'daily' }),
        node('c', { sessionKey: 'k', startedAt: 150, endedAt: 190, endReason: 'cli_close' }),
        node('d', { sessionKey: 'k', startedAt: 200 }),
        node('e', { sessionKey: 'other', startedAt: 300 }),
      ],
      new Map(),
    );
    expect(plan.decisions.get('d')).toEqual({ parentId: 'b', kind: 'reset', via: 'session_key' });
    expect(plan.decisions.get('b')).toEqual({ parentId: 'a', kind: 'reset', via: 'session_key' });
    expect(plan.decisions.get('c')).toEqual({ parentId: 'a', kind: 'reset', via: 'session_key' });
    expect(plan.decisions.get('a')?.parentId).toBeNull();
    expect(plan.decisions.get('e')?.parentId).toBeNull();
    expect(plan.conversationGeneration.get('d')).toBe(2);
    expect(plan.impliedGenerations.get('cli\nk')).toBe(2);
  });

  it('orders parents first and marks sub-agent conversations (delegates and their continuations)', () => {
    const plan = planLineage(
      [
        node('tip', { parentId: 'helper', startedAt: 30 }),
        node('helper', { parentId: 'root', source: 'subagent', startedAt: 20, endedAt: 30, endReason: 'compression' }),
        node('root', { startedAt: 10 }),
      ],
      new Map(),
    );
    expect(plan.order).toEqual(['root', 'helper', 'tip']);
    expect(plan.decisions.get('tip')?.kind).toBe('compression');
    expect([...plan.delegated].sort()).toEqual(['helper', 'tip']);
  });

  it('breaks a cycle at its oldest member and drops dangling, cross-profile and self edges', () => {
    const plan = planLineage(
      [
        node('x', { parentId: 'z', startedAt: 5 }),
        node('y', { parentId: 'x', startedAt: 6 }),
        node('z', { parentId: 'y', startedAt: 7 }),
        node('lost', { parentId: 'nowhere' }),
        node('self', { parentId: 'self' }),
        node('other', { parentId: 'x', profile: 'q' }),
      ],
      new Map(),
    );
    expect(plan.decisions.get('x')?.parentId).toBeNull();
    expect(plan.decisions.get('y')?.parentId).toBe('x');
    expect(plan.decisions.get('z')?.parentId).toBe('y');
    expect(plan.decisions.get('lost')?.parentId).toBeNull();
    expect(plan.decisions.get('self')?.parentId).toBeNull();
    expect(plan.decisions.get('other')?.parentId).toBeNull();
    expect(plan.warnings).toEqual(
      expect.arrayContaining([
        'lineage cycle x → z → y → x: the edge from x to its parent was dropped',
        'session lost: parent nowhere is not in the file; imported as a root',
        'session self: names itself as its parent; imported as a root',
        'session other: parent x belongs to profile p, not q; imported as a root',
      ]),
    );
    expect(new Set(plan.order).size).toBe(6);
  });

  it('classifies an edge to a parent already in the store (an earlier import)', () => {
    const existing = new Map([['old', node('old', { endedAt: 50, endReason: 'compression', delegated: true })]]);
    const plan = planLineage([node('next', { parentId: 'old', startedAt: 60 })], existing);
    expect(plan.decisions.get('next')).toEqual({ parentId: 'old', kind: 'compression', via: 'compression' });
    expect(plan.delegated.has('next')).toBe(true);
  });
});
