import type { ImportReport, LineageKind } from '@statehouse/contracts';

/** The report keeps this many warning lines; the rest are counted in a last line. */
export const MAX_WARNINGS = 1000;

/** Counts and warnings of one unit of work: merged into the run's report only once it commits. */
export class ReportDelta {
  sessions = { created: 0, updated: 0, skipped: 0, conflicts: 0 };
  messages = { created: 0, skipped: 0 };
  lineage: Record<LineageKind, number> = { compression: 0, branch: 0, reset: 0, delegate: 0 };
  routes = 0;
  delegations = { created: 0, skipped: 0 };
  deliveries = { created: 0, skipped: 0 };
  warnings: string[] = [];
  conversations: { id: string; title: string | null }[] = [];

  warn(line: string): void {
    this.warnings.push(line);
  }
}

/** The report of a whole run, built from committed deltas. */
export class ImportReportBuilder {
  private readonly totals = new ReportDelta();
  private readonly warnings: string[] = [];
  private dropped = 0;
  readonly conversations: { id: string; title: string | null }[] = [];

  warn(line: string): void {
    if (this.warnings.length < MAX_WARNINGS) this.warnings.push(line);
    else this.dropped++;
  }

  merge(delta: ReportDelta): void {
    const t = this.totals;
    for (const key of Object.keys(t.sessions) as (keyof typeof t.sessions)[]) t.sessions[key] += delta.sessions[key];
    for (const key of Object.keys(t.messages) as (keyof typeof t.messages)[]) t.messages[key] += delta.messages[key];
    for (const key of Object.keys(t.lineage) as LineageKind[]) t.lineage[key] += delta.lineage[key];
    t.routes += delta.routes;
    for (const key of ['created', 'skipped'] as const) {
      t.delegations[key] += delta.delegations[key];
      t.deliveries[key] += delta.deliveries[key];
    }
    for (const line of delta.warnings) this.warn(line);
    for (const conversation of delta.conversations) {
      if (this.conversations.length < 50) this.conversations.push(conversation);
    }
  }

  /** The report as it would read with `pending` merged (progress saved inside that unit's transaction). */
  report(pending?: ReportDelta): ImportReport {
    const t = this.totals;
    const p = pending ?? new ReportDelta();
    const warnings = [...this.warnings, ...(pending ? pending.warnings : [])].slice(0, MAX_WARNINGS);
    const dropped = this.dropped + Math.max(0, this.warnings.length + p.warnings.length - MAX_WARNINGS);
    if (dropped > 0) warnings.push(`… and ${dropped} more warning(s) not shown`);
    return {
      sessions: {
        created: t.sessions.created + p.sessions.created,
        updated: t.sessions.updated + p.sessions.updated,
        skipped: t.sessions.skipped + p.sessions.skipped,
        conflicts: t.sessions.conflicts + p.sessions.conflicts,
      },
      messages: { created: t.messages.created + p.messages.created, skipped: t.messages.skipped + p.messages.skipped },
      lineage: {
        compression: t.lineage.compression + p.lineage.compression,
        branch: t.lineage.branch + p.lineage.branch,
        reset: t.lineage.reset + p.lineage.reset,
        delegate: t.lineage.delegate + p.lineage.delegate,
      },
      routes: t.routes + p.routes,
      delegations: {
        created: t.delegations.created + p.delegations.created,
        skipped: t.delegations.skipped + p.delegations.skipped,
      },
      deliveries: {
        created: t.deliveries.created + p.deliveries.created,
        skipped: t.deliveries.skipped + p.deliveries.skipped,
      },
      warnings,
    };
  }

  conversationsWith(pending?: ReportDelta): { id: string; title: string | null }[] {
    return [...this.conversations, ...(pending?.conversations ?? [])].slice(0, 50);
  }
}
