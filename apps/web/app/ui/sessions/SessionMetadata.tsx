import type { LineageResponse, Session } from '@statehouse/contracts';
import Link from 'next/link';
import { Badge, Card, type DescriptionItem, DescriptionList, Table, Timestamp } from '@/app/ui/common';
import { formatCost, formatNumber, humanize } from '@/lib/format';
import { sessionHref } from '@/lib/paths';
import { sessionStatus } from '@/lib/session-display';
import './sessions.css';

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className="metadata-section">
      <h3 className="metadata-section__title">{title}</h3>
      {children}
    </div>
  );
}

const mono = (value: string | null) => (value ? <code>{value}</code> : null);

/** Everything the API knows about the session row, grouped the way an operator asks about it. */
export function SessionMetadata({ session, lineage }: { session: Session; lineage: LineageResponse | null }) {
  const parent = lineage?.nodes.find((node) => node.id === session.parentSessionId) ?? null;
  const status = sessionStatus(session);
  const overview: DescriptionItem[] = [
    {
      term: 'Status',
      detail: (
        <>
          <Badge tone={status.tone} dot>
            {status.label}
          </Badge>{' '}
          {status.reason ? <span className="text-muted">{status.reason}</span> : null}
        </>
      ),
    },
    { term: 'Profile', detail: session.profile },
    {
      // One row: the surface the conversation began on and, once another surface resumed it, where it lives now.
      term: 'Source',
      hint: 'Where the conversation began (stamped once) and, when another surface resumed it, where it lives now',
      detail:
        session.createdSource === session.source ? (
          <Badge tone="info">{session.source}</Badge>
        ) : (
          <span className="source-change">
            <Badge tone="info" title="created on">
              {session.createdSource}
            </Badge>
            <span aria-hidden="true">→</span>
            <span className="visually-hidden">now</span>
            <Badge tone="info" title="now on">
              {session.source}
            </Badge>
          </span>
        ),
    },
    { term: 'Started', detail: <Timestamp iso={session.startedAt} relative={false} /> },
    { term: 'Last activity', detail: <Timestamp iso={session.lastActivityAt} relative={false} /> },
    { term: 'Ended', detail: session.endedAt ? <Timestamp iso={session.endedAt} relative={false} /> : null },
    { term: 'Model', detail: mono(session.model) },
    { term: 'Title source', detail: session.titleSource },
  ];
  const concurrency: DescriptionItem[] = [
    {
      term: 'Revision',
      hint: 'Increases on every change to the session or its transcript; edits are checked against it',
      detail: <span data-testid="session-revision">{session.revision}</span>,
    },
    {
      term: 'Generation',
      hint: 'Increases each time an agent turn begins; the fencing token of agent workers',
      detail: <span data-testid="session-generation">{session.generation}</span>,
    },
    {
      term: 'Turn lease',
      hint: 'While a turn lease is live the session is busy: destructive operations are refused',
      detail: session.turn ? (
        <>
          <code>{session.turn.holder}</code> until <Timestamp iso={session.turn.expiresAt} relative={false} />
        </>
      ) : (
        <span className="text-muted">None (idle)</span>
      ),
    },
    {
      term: 'Conversation generation',
      hint: "The chat's conversation generation when this session began; each reset-class end adds one",
      detail: session.conversationGeneration ?? null,
    },
  ];
  const lineageItems: DescriptionItem[] = [
    {
      term: 'Parent',
      detail: session.parentSessionId ? (
        <span className="parent-link">
          <Link href={sessionHref(session.parentSessionId)}>{parent?.title ?? 'Untitled session'}</Link>
          <code>{session.parentSessionId}</code>
        </span>
      ) : null,
    },
    { term: 'Edge kind', detail: session.lineageKind ? humanize(session.lineageKind) : null },
  ];
  const routing: DescriptionItem[] = [
    { term: 'Session key', detail: mono(session.sessionKey) },
    { term: 'Chat', detail: session.chatId ? `${session.chatType ?? 'chat'} ${session.chatId}` : null },
    { term: 'Thread', detail: mono(session.threadId) },
    { term: 'User', detail: session.displayName ?? mono(session.userId) },
    {
      term: 'Transport',
      hint: 'The bot or adapter that received the conversation and delivers it when revived',
      detail: mono(session.transportProfile),
    },
  ];
  const tokens: [string, number][] = [
    ['Input', session.inputTokens],
    ['Output', session.outputTokens],
    ['Cache read', session.cacheReadTokens],
    ['Cache write', session.cacheWriteTokens],
    ['Reasoning', session.reasoningTokens],
  ];

  return (
    <>
      <Card title="Details" headingLevel={2}>
        <Section title="Overview">
          <DescriptionList items={overview} />
        </Section>
        <Section title="Concurrency">
          <DescriptionList items={concurrency} />
        </Section>
        <Section title="Lineage">
          <DescriptionList items={lineageItems} />
        </Section>
        <Section title="Routing">
          <DescriptionList items={routing} />
        </Section>
      </Card>
      <Card title="Usage" headingLevel={2}>
        <DescriptionList
          items={[
            { term: 'Messages', detail: formatNumber(session.messageCount) },
            { term: 'Tool calls', detail: formatNumber(session.toolCallCount) },
            { term: 'Estimated cost', detail: formatCost(session.estimatedCostUsd) },
          ]}
        />
        <Table
          caption="Tokens"
          captionHidden
          head={['Tokens', 'Count']}
          rows={tokens.map(([label, value]) => [label, formatNumber(value)])}
          numericColumns={[1]}
          className="usage-table"
        />
      </Card>
    </>
  );
}
