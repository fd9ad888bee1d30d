import type { MessageInput } from '@statehouse/contracts';
import { SYSTEM_PRINCIPAL } from '../shared/access.js';
import type { OperationContext } from '../shared/context.js';
import type { StateStore } from '../store.js';

const ctx: OperationContext = { principal: SYSTEM_PRINCIPAL, channel: 'system' };

interface Conversation {
  id: string;
  profile: string;
  source: string;
  title?: string;
  sessionKey?: string;
  chatType?: string;
  chatId?: string;
  userId?: string;
  turns: [string, string][];
  tool?: { name: string; args: Record<string, unknown>; result: string };
  ended?: string;
  parent?: { id: string; kind: 'branch' | 'delegate' | 'compression' | 'reset' };
}

const TOPICS: { title: string; turns: [string, string][] }[] = [
  {
    title: 'Deploy checklist for the billing service',
    turns: [
      [
        'What do we need to check before deploying billing v2?',
        'Run the migration dry-run, confirm the feature flag is off, and make sure the rollback image is tagged.',
      ],
      ['Is the migration reversible?', 'Yes: every step has a down migration, and the data backfill is idempotent.'],
      ['Who needs to approve?', 'The on-call SRE and the billing owner. I drafted the approval request in #deploys.'],
    ],
  },
  {
    title: 'Summarise the incident from last night',
    turns: [
      [
        'Summarise the incident from last night for the status page.',
        'Between 02:10 and 02:45 UTC the API returned elevated 503s because a connection pool was exhausted after a config push.',
      ],
      [
        'What was the root cause?',
        'A typo set the pool size to 4 instead of 40. The canary did not catch it because its traffic was too low.',
      ],
      [
        'Action items?',
        'Validate pool sizes in CI, raise canary traffic to 5%, and alert on pool saturation above 80%.',
      ],
    ],
  },
  {
    title: '会议纪要：第三季度产品规划',
    turns: [
      [
        '请帮我整理一下今天产品规划会议的纪要。',
        '好的。会议确定了第三季度的三个重点：搜索体验、移动端性能和企业版权限管理。',
      ],
      ['搜索体验具体要做什么？', '支持中文分词和子串搜索，结果按相关度排序，并在会话列表里显示摘要。'],
      ['谁负责移动端性能？', '由客户端团队负责，目标是冷启动时间降低百分之三十。'],
    ],
  },
  {
    title: '東京出張の準備',
    turns: [
      [
        '来週の東京出張の準備を手伝ってください。',
        'もちろんです。ホテル、新幹線の予約、そして会議資料の確認が必要です。',
      ],
      ['会議は何時からですか？', '火曜日の午前十時から、渋谷のオフィスで行われます。'],
    ],
  },
  {
    title: 'Weekly dependency update',
    turns: [
      [
        'Check which dependencies have security advisories this week.',
        'Two advisories: a prototype pollution fix in a YAML parser and a ReDoS fix in a URL library.',
      ],
      ['Open upgrade PRs for both.', 'Done. Both PRs pass CI; the YAML parser bump needed one test fixture update.'],
    ],
  },
  {
    title: 'Refactor the retry helper',
    turns: [
      [
        'Our retry helper retries on 400s. Can you fix it?',
        'I changed it to retry only on 408, 429 and 5xx, with jittered exponential backoff capped at 30 seconds.',
      ],
      [
        'Add tests for the jitter.',
        'Added property tests: every delay stays within the cap and the sequence is non-decreasing in expectation.',
      ],
    ],
  },
  {
    title: 'Customer asks about data export',
    turns: [
      [
        'A customer wants to export all their conversations. What are the options?',
        'They can use the export endpoint per session (JSON lines) or ask an admin for a bulk export of their profile.',
      ],
      [
        'Does the export include deleted sessions?',
        'No. Deleted sessions are gone; only the content-free deletion receipts remain, which prove what was removed.',
      ],
    ],
  },
  {
    title: 'Nightly backup report',
    turns: [
      [
        'Report on the nightly backups.',
        'All 14 databases backed up; the largest took 11 minutes. Restore test of the analytics replica passed.',
      ],
    ],
  },
];

const FILLER: [string, string][] = [
  [
    'Can you add a short note about monitoring?',
    'Added: dashboards for latency, error rate and saturation, with alerts routed to the on-call channel.',
  ],
  [
    'Thanks. Anything else we should watch?',
    'Disk usage on the log volume is at 71% and growing about 2% per week; I suggest a retention change.',
  ],
  [
    'Please write that down as a follow-up.',
    'Created a follow-up task with the numbers and a proposed 14-day retention.',
  ],
  [
    'What did we decide about the cache?',
    'Keep the in-process cache, cap it at 50k entries, and expire entries after ten minutes.',
  ],
];

function conversations(): Conversation[] {
  const sources = ['cli', 'telegram', 'discord', 'desktop', 'slack', 'api_server'];
  const list: Conversation[] = [];
  let n = 0;
  for (const profile of ['default', 'support']) {
    for (const [index, topic] of TOPICS.entries()) {
      n++;
      const source = sources[(index + (profile === 'support' ? 2 : 0)) % sources.length];
      const gateway = source === 'telegram' || source === 'discord' || source === 'slack';
      const chatId = `${source}-chat-${100 + index}`;
      list.push({
        id: `demo-${profile}-${String(index + 1).padStart(2, '0')}`,
        profile,
        source,
        title: profile === 'support' ? `${topic.title} (support)` : topic.title,
        sessionKey: gateway ? `agent:${profile}:${source}:dm:${chatId}` : undefined,
        chatType: gateway ? 'dm' : undefined,
        chatId: gateway ? chatId : undefined,
        userId: gateway ? `user-${index + 7}` : undefined,
        turns: [...topic.turns, ...FILLER.slice(0, 3 + (n % 6))],
        tool:
          index % 3 === 0
            ? { name: 'web_search', args: { query: topic.title, limit: 5 }, result: `5 results for "${topic.title}"` }
            : undefined,
        ended: index % 4 === 3 ? 'cli_close' : undefined,
      });
    }
  }
  // Scheduled job output and a sub-agent helper: excluded from the substring index, delegate hidden.
  list.push({
    id: 'demo-default-cron-digest',
    profile: 'default',
    source: 'cron',
    title: 'Daily digest (cron)',
    turns: [['Produce the daily digest.', 'Digest: 3 deploys, 1 incident resolved, 12 PRs merged, backups green.']],
    ended: 'agent_close',
  });
  list.push({
    id: 'demo-default-01-research',
    profile: 'default',
    source: 'subagent',
    turns: [
      [
        'Research rollback procedures for billing v2.',
        'Rollback: redeploy the tagged image, then run the down migration; no data loss expected.',
      ],
    ],
    parent: { id: 'demo-default-01', kind: 'delegate' },
    ended: 'agent_close',
  });
  list.push({
    id: 'demo-default-02-branch',
    profile: 'default',
    source: 'desktop',
    title: 'Incident summary — customer-facing draft',
    turns: [
      [
        'Rewrite the summary for customers, without internal names.',
        'Last night some requests failed for about 35 minutes due to a configuration error. It is fixed and we added safeguards.',
      ],
    ],
    parent: { id: 'demo-default-02', kind: 'branch' },
  });
  return list;
}

function transcript(conversation: Conversation, start: number): MessageInput[] {
  const messages: MessageInput[] = [
    { role: 'system', content: 'You are a helpful operations agent.', displayKind: 'hidden', timestamp: start },
  ];
  let t = start;
  conversation.turns.forEach(([question, answer], index) => {
    t += 45_000;
    messages.push({ role: 'user', content: question, timestamp: t, platformMessageId: `${conversation.id}-u${index}` });
    if (index === 0 && conversation.tool) {
      const callId = `call_${conversation.id}`;
      messages.push({
        role: 'assistant',
        content: '',
        toolCalls: [
          {
            id: callId,
            type: 'function',
            function: { name: conversation.tool.name, arguments: JSON.stringify(conversation.tool.args) },
          },
        ],
        timestamp: t + 2_000,
      });
      messages.push({
        role: 'tool',
        toolCallId: callId,
        toolName: conversation.tool.name,
        content: conversation.tool.result,
        timestamp: t + 4_000,
      });
    }
    t += 20_000;
    messages.push({
      role: 'assistant',
      content: answer,
      timestamp: t,
      tokenCount: Math.ceil(answer.length / 4),
      finishReason: 'stop',
    });
  });
  return messages;
}

/**
 * A small realistic dataset for a new embedded database: two profiles, several surfaces, CJK
 * text, tool calls, hidden scaffolding, a delegate helper and a branch.
 */
export async function seedDemoData(store: StateStore): Promise<{ sessions: number; messages: number }> {
  const list = conversations();
  const now = store.clock.now();
  let messageCount = 0;
  for (const [index, conversation] of list.entries()) {
    const start = now - (list.length - index) * 3_600_000;
    const messages = transcript(conversation, start);
    messageCount += messages.length;
    const created = await store.sessions.create(ctx, {
      id: conversation.id,
      profile: conversation.profile,
      source: conversation.source,
      title: conversation.title,
      titleSource: conversation.title ? 'llm' : undefined,
      model: 'demo-model-1',
      sessionKey: conversation.sessionKey,
      chatType: conversation.chatType,
      chatId: conversation.chatId,
      userId: conversation.userId,
      parentSessionId: conversation.parent?.id,
      lineageKind: conversation.parent?.kind,
      messages,
    });
    if (created.sessionKey) {
      await store.routes.set(ctx, { profile: created.profile, sessionKey: created.sessionKey, sessionId: created.id });
    }
    if (conversation.ended) {
      await store.sessions.stampEndForSeed(created.id, now - 60_000, conversation.ended);
    }
  }
  // A long conversation compressed twice (its route follows the tip), with a branch off the middle.
  let sessions = list.length;
  const tokens = async (id: string) => {
    const session = await store.sessions.get(ctx, id);
    return { ifMatch: session.revision, expectedGeneration: session.generation };
  };
  const first = await store.lineage.compress(
    ctx,
    'demo-support-02',
    {
      summary: 'Summary: the status-page write-up of the 02:10–02:45 UTC outage (pool size typo) and its action items.',
      keepLastMessages: 2,
      childId: 'demo-support-02-c1',
    },
    await tokens('demo-support-02'),
  );
  await store.messages.append(ctx, first.child.id, {
    messages: [
      { role: 'user', content: 'Can you also draft the internal postmortem?' },
      {
        role: 'assistant',
        content:
          'Drafted: timeline, impact (35 minutes of elevated 503s), root cause, and five action items with owners.',
      },
    ],
  });
  await store.lineage.compress(
    ctx,
    first.child.id,
    {
      summary: 'Summary: postmortem drafted with timeline, impact, root cause and action items.',
      keepLastMessages: 1,
      childId: 'demo-support-02-c2',
    },
    await tokens(first.child.id),
  );
  await store.messages.append(ctx, 'demo-support-02-c2', {
    messages: [
      { role: 'user', content: 'Schedule the review meeting for Thursday.' },
      { role: 'assistant', content: 'Booked Thursday 15:00 UTC and invited the on-call rotation.' },
    ],
  });
  await store.lineage.branch(
    ctx,
    first.child.id,
    { childId: 'demo-support-02-branch', title: 'Postmortem — executive summary' },
    await tokens(first.child.id),
  );
  sessions += 3;
  messageCount += 9;
  // A finished handoff from Slack to the desktop app.
  await store.handoff.request(ctx, 'demo-support-03', 'desktop', {});
  await store.handoff.claim(ctx, 'demo-support-03', {});
  await store.handoff.complete(ctx, 'demo-support-03', {});
  return { sessions, messages: messageCount };
}
