import { Badge } from '@/app/ui/common';

interface SourceChangeProps {
  /** The surface the conversation began on (docs/domain.md §2.2.2). */
  createdSource: string;
  /** The surface that holds it now. */
  source: string;
  /** Badges (the list) or plain text (the compact table). */
  plain?: boolean;
}

/**
 * Where a conversation lives: its surface, or — when another surface holds it now — both,
 * `telegram → desktop` (read as "telegram, now on desktop").
 */
export function SourceChange({ createdSource, source, plain = false }: SourceChangeProps) {
  const label = (value: string) => (plain ? value : <Badge tone="info">{value}</Badge>);
  if (createdSource === source) return label(source);
  return (
    <span className="source-change" title={`Created on ${createdSource}, now on ${source}`}>
      {label(createdSource)}
      <span aria-hidden="true">→</span>
      <span className="visually-hidden">, now on</span>
      {label(source)}
    </span>
  );
}
