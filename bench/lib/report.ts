/** Tables printed as the run goes, then written as docs/benchmarks.md. */
export interface TargetRow {
  figure: string;
  ours: string;
  ceiling: string;
  ratio: string;
  target: string;
  /** null: informational (no target), or not measured. */
  met: boolean | null;
}

export interface Table {
  title: string;
  intro?: string;
  columns: string[];
  rows: string[][];
}

export class Report {
  readonly targets: TargetRow[] = [];
  readonly sections: { heading: string; intro?: string; tables: Table[] }[] = [];
  readonly notes: string[] = [];

  section(heading: string, intro?: string): void {
    this.sections.push({ heading, intro, tables: [] });
    log(`\n## ${heading}`);
  }

  table(title: string, columns: string[], intro?: string): (cells: (string | number)[]) => void {
    const table: Table = { title, intro, columns, rows: [] };
    if (this.sections.length === 0) this.section('Results');
    this.sections[this.sections.length - 1].tables.push(table);
    log(`\n### ${title}`);
    log(markdownRow(columns));
    log(markdownRow(columns.map(() => '---')));
    return (cells) => {
      const row = cells.map(String);
      table.rows.push(row);
      log(markdownRow(row));
    };
  }

  target(row: TargetRow): void {
    this.targets.push(row);
    log(
      `  => ${row.figure}: ours ${row.ours} vs ceiling ${row.ceiling} (${row.ratio}); target ${row.target}: ${verdict(row.met)}`,
    );
  }

  note(text: string): void {
    this.notes.push(text);
  }

  markdown(header: string, footer: string): string {
    const lines: string[] = [header.trimEnd(), '', '## Targets', ''];
    lines.push(markdownRow(['figure', 'ours', 'ceiling (same run)', 'ratio', 'target', 'result']));
    lines.push(markdownRow(['---', '---:', '---:', '---:', '---', '---']));
    for (const t of this.targets)
      lines.push(markdownRow([t.figure, t.ours, t.ceiling, t.ratio, t.target, verdict(t.met)]));
    for (const section of this.sections) {
      lines.push('', `## ${section.heading}`);
      if (section.intro) lines.push('', section.intro);
      for (const table of section.tables) {
        lines.push('', `### ${table.title}`, '');
        if (table.intro) lines.push(table.intro, '');
        lines.push(markdownRow(table.columns), markdownRow(table.columns.map(() => '---')));
        for (const row of table.rows) lines.push(markdownRow(row));
      }
    }
    lines.push('', '## Notes', '');
    for (const note of this.notes) lines.push(`- ${note}`);
    lines.push('', footer.trimEnd(), '');
    return lines.join('\n');
  }
}

export const verdict = (met: boolean | null): string => (met === null ? '—' : met ? 'met' : '**not met**');

const markdownRow = (cells: string[]) => `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;

export function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

export const fmtUs = (ms: number): string => `${(ms * 1000).toFixed(ms < 0.1 ? 1 : 0)} µs`;

export function fmtMs(ms: number): string {
  if (ms < 0.1) return `${(ms * 1000).toFixed(0)} µs`;
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  return `${ms.toFixed(1)} ms`;
}

export const fmtRate = (perSecond: number): string => `${Math.round(perSecond).toLocaleString('en-US')} msg/s`;
export const fmtPerSecond = (perSecond: number, unit: string): string =>
  `${Math.round(perSecond).toLocaleString('en-US')} ${unit}/s`;
export const fmtRatio = (ratio: number): string => `${ratio.toFixed(2)}×`;
export const fmtPct = (fraction: number): string => `${(fraction * 100).toFixed(0)} %`;
export const fmtCount = (n: number): string => n.toLocaleString('en-US');
export const fmtSigned = (fraction: number): string => `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(0)} %`;
/** A share with one decimal (small shares such as “calls over 5 ms”). */
export const fmtPct1 = (fraction: number): string => `${(fraction * 100).toFixed(1)} %`;
