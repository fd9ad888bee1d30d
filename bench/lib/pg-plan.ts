import type { StateStore } from '@statehouse/state';
import type { RawBuilder } from 'kysely';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/**
 * The scans of PostgreSQL's plan for `query` (an `explain (format json) …` builder), e.g.
 * "Index Scan (sessions_recent_idx) + Index Only Scan (sessions_parent_idx)", so a plan shows up in
 * a table next to its timing. Heap fetches of bitmap scans and scans of `skip` relations are left out.
 */
export async function planScans(store: StateStore, query: RawBuilder<unknown>, skip: string[] = []): Promise<string> {
  const { rows } = await query.execute(store.db);
  const scans: string[] = [];
  const walk = (node: PlanNode) => {
    const type = node['Node Type'];
    if (/Scan/.test(type) && !/Heap/.test(type) && !skip.includes(node['Relation Name'] ?? '')) {
      scans.push(`${type}${node['Index Name'] ? ` (${node['Index Name']})` : ''}`);
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  const plan = (rows[0] as { 'QUERY PLAN': { Plan: PlanNode }[] })['QUERY PLAN'][0].Plan;
  walk(plan);
  return scans.join(' + ') || plan['Node Type'];
}
