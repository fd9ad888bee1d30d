import type { EndReason, MessageInput, Principal, UsageDelta } from '@statehouse/contracts';
import { SYSTEM_PRINCIPAL } from '../shared/access.js';
import { ManualClock } from '../shared/clock.js';
import type { OperationContext } from '../shared/context.js';
import { type Logger, silentLogger } from '../shared/logger.js';
import { openStore, type StateStore } from '../store.js';

const api: OperationContext = { principal: SYSTEM_PRINCIPAL, channel: 'api' };
const dashboard: OperationContext = { principal: SYSTEM_PRINCIPAL, channel: 'dashboard' };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const HIDDEN_SYSTEM_PROMPT = 'You are a helpful operations agent.';

/**
 * Illustrative prices (USD per million tokens) for the demo's cost figures: not any vendor's
 * price list. `caches`: later turns read the earlier context from a prompt cache.
 */
const MODELS: Record<string, { input: number; cacheRead: number; output: number; caches: boolean; reasons: boolean }> =
  {
    'claude-sonnet-4.5': { input: 3, cacheRead: 0.3, output: 15, caches: true, reasons: false },
    'gpt-5': { input: 1.25, cacheRead: 0.125, output: 10, caches: true, reasons: true },
    'gemini-2.5-pro': { input: 1.25, cacheRead: 0.31, output: 10, caches: false, reasons: true },
    'llama-3.3-70b': { input: 0.6, cacheRead: 0.6, output: 0.6, caches: false, reasons: false },
  };
const MODEL_NAMES = Object.keys(MODELS);

interface Conversation {
  id: string;
  profile: string;
  source: string;
  model: string;
  title?: string;
  sessionKey?: string;
  chatType?: string;
  chatId?: string;
  userId?: string;
  turns: [string, string][];
  tool?: { name: string; args: Record<string, unknown>; result: string };
  ended?: EndReason;
  parent?: { id: string; kind: 'branch' | 'delegate' };
  /** When the first message is written, and the gap between turns. */
  start: number;
  gap: number;
}

const TOPICS: { title: string; turns: [string, string][] }[] = [
  {
    title: 'Deploy checklist for the billing service',
    turns: [
      [
        'What do we need to check before deploying billing v2?',
        [
          'Before deploying **billing v2**:',
          '',
          '1. Run the migration dry-run against last night’s staging snapshot.',
          '2. Confirm the `billing_v2_checkout` feature flag is **off** in every region.',
          '3. Tag the rollback image (`billing:v1.14.2`) and note its digest in the deploy ticket.',
          '',
          '- [x] dry-run passed (412 s, no locks held longer than 2 s)',
          '- [ ] approvals from on-call SRE and the billing owner',
        ].join('\n'),
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
        [
          'Three action items:',
          '',
          '- Validate pool sizes in CI (*reject* anything below 16).',
          '- Raise canary traffic to **5 %**.',
          '- Alert on pool saturation above 80 % for 2 minutes.',
        ].join('\n'),
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
        [
          'Two advisories this week:',
          '',
          '| package | severity | issue | fixed in |',
          '| --- | --- | --- | --- |',
          '| yaml-parser | high | prototype pollution | 2.4.1 |',
          '| url-lib | moderate | ReDoS in host parsing | 5.0.3 |',
          '',
          'Both have patched releases; neither is reachable from untrusted input in our services.',
        ].join('\n'),
      ],
      ['Open upgrade PRs for both.', 'Done. Both PRs pass CI; the YAML parser bump needed one test fixture update.'],
    ],
  },
  {
    title: 'Refactor the retry helper',
    turns: [
      [
        'Our retry helper retries on 400s. Can you fix it?',
        [
          'I changed it to retry only on 408, 429 and 5xx, with jittered exponential backoff capped at 30 seconds:',
          '',
          '```ts',
          'export function shouldRetry(status: number): boolean {',
          '  return status === 408 || status === 429 || status >= 500;',
          '}',
          '',
          'export function backoffMs(attempt: number, capMs = 30_000): number {',
          '  const ceiling = Math.min(capMs, 100 * 2 ** attempt);',
          '  return ceiling / 2 + Math.random() * (ceiling / 2);',
          '}',
          '```',
          '',
          'Client errors other than 408 and 429 now fail fast.',
        ].join('\n'),
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
        [
          'All 14 databases backed up. The slowest three:',
          '',
          '| database | size | duration | restore test |',
          '| --- | ---: | ---: | --- |',
          '| analytics | 412 GB | 11 min | passed |',
          '| billing | 96 GB | 4 min | — |',
          '| auth | 8 GB | 40 s | — |',
          '',
          'To check one yourself:',
          '',
          '```bash',
          'pg_restore --list /backups/analytics/latest.dump | head',
          '```',
        ].join('\n'),
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

/** Roughly how a tokenizer counts: about four characters a token (CJK: one a character). */
export function demoTokens(text: string): number {
  const cjk = (text.match(/[\u3000-\u9fff]/g) ?? []).length;
  return Math.max(1, cjk + Math.ceil((text.length - cjk) / 4));
}

/**
 * When each conversation happens, relative to `now`: spread over the last two weeks in working
 * hours, one crossing midnight (UTC), the newest still going on a minute ago.
 */
function schedule(index: number, count: number, now: number, turns: number, gap: number): number {
  const today = Math.floor(now / DAY) * DAY;
  const daysAgo = 13 - Math.floor((index * 13) / (count - 1));
  const hours = [9, 14, 11, 16, 10, 19, 13, 8, 15, 23];
  const hour = hours[index % hours.length];
  const minute = (index * 17) % 50;
  let start = today - daysAgo * DAY + hour * HOUR + (hour === 23 ? 45 : minute) * MINUTE;
  const last = start + turns * gap;
  // The last two conversations are live (open, their latest message minutes ago); none runs into the future.
  if (last > now - 2 * MINUTE || index >= count - 2) start = now - (count - index) * 2 * MINUTE - turns * gap;
  return start;
}

function conversations(now: number): Conversation[] {
  const sources = ['cli', 'telegram', 'discord', 'desktop', 'slack', 'api_server'];
  const list: Conversation[] = [];
  const count = TOPICS.length * 2;
  let n = 0;
  for (const profile of ['default', 'support']) {
    for (const [index, topic] of TOPICS.entries()) {
      const slot = n++;
      const source = sources[(index + (profile === 'support' ? 2 : 0)) % sources.length];
      const gateway = source === 'telegram' || source === 'discord' || source === 'slack';
      const chatId = `${source}-chat-${100 + index}`;
      const turns = [...topic.turns, ...FILLER.slice(0, 3 + (slot % 6))];
      // Interleave the two profiles in time: slot order is default-01, support-01, default-02, …
      const order = index * 2 + (profile === 'support' ? 1 : 0);
      const gap = (3 + (order % 4)) * MINUTE;
      const live = order >= count - 2;
      list.push({
        id: `demo-${profile}-${String(index + 1).padStart(2, '0')}`,
        profile,
        source,
        model: MODEL_NAMES[(index + (profile === 'support' ? 1 : 0)) % MODEL_NAMES.length],
        title: profile === 'support' ? `${topic.title} (support)` : topic.title,
        sessionKey: gateway ? `agent:${profile}:${source}:dm:${chatId}` : undefined,
        chatType: gateway ? 'dm' : undefined,
        chatId: gateway ? chatId : undefined,
        userId: gateway ? `user-${index + 7}` : undefined,
        turns,
        tool:
          index % 3 === 0
            ? { name: 'web_search', args: { query: topic.title, limit: 5 }, result: `5 results for "${topic.title}"` }
            : undefined,
        ended: index % 4 === 3 && !live ? 'cli_close' : undefined,
        start: schedule(order, count, now, turns.length, gap),
        gap,
      });
    }
  }
  const at = (daysAgo: number, hour: number) => Math.floor(now / DAY) * DAY - daysAgo * DAY + hour * HOUR;
  // Scheduled job output and a sub-agent helper: excluded from the substring index, delegate hidden.
  list.push({
    id: 'demo-default-cron-digest',
    profile: 'default',
    source: 'cron',
    model: 'llama-3.3-70b',
    title: 'Daily digest (cron)',
    turns: [['Produce the daily digest.', 'Digest: 3 deploys, 1 incident resolved, 12 PRs merged, backups green.']],
    ended: 'agent_close',
    start: at(1, 6),
    gap: MINUTE,
  });
  const parentOf = (id: string) => list.find((c) => c.id === id)!;
  list.push({
    id: 'demo-default-01-research',
    profile: 'default',
    source: 'subagent',
    model: 'gpt-5',
    turns: [
      [
        'Research rollback procedures for billing v2.',
        'Rollback: redeploy the tagged image, then run the down migration; no data loss expected.',
      ],
    ],
    parent: { id: 'demo-default-01', kind: 'delegate' },
    ended: 'agent_close',
    start: parentOf('demo-default-01').start + 4 * MINUTE,
    gap: 2 * MINUTE,
  });
  const incident = parentOf('demo-default-02');
  list.push({
    id: 'demo-default-02-branch',
    profile: 'default',
    source: 'desktop',
    model: 'claude-sonnet-4.5',
    title: 'Incident summary — customer-facing draft',
    turns: [
      [
        'Rewrite the summary for customers, without internal names.',
        'Last night some requests failed for about 35 minutes due to a configuration error. It is fixed and we added safeguards.',
      ],
    ],
    parent: { id: 'demo-default-02', kind: 'branch' },
    start: incident.start + (incident.turns.length + 3) * incident.gap,
    gap: 2 * MINUTE,
  });
  return list;
}

/**
 * The transcript as appended turn by turn: the hidden system prompt first, then each user message
 * with the assistant's reply (and a tool call on the first turn of some), with the usage of the
 * model call that produced the reply — its input is the whole context so far, so the session's
 * counters are the sum of its calls.
 */
function turnsOf(conversation: Conversation): { at: number; messages: MessageInput[]; usage: UsageDelta }[] {
  const price = MODELS[conversation.model];
  let context = demoTokens(HIDDEN_SYSTEM_PROMPT);
  let cached = 0;
  return conversation.turns.map(([question, answer], index) => {
    const t = conversation.start + index * conversation.gap;
    const messages: MessageInput[] = [];
    if (index === 0) {
      messages.push({ role: 'system', content: HIDDEN_SYSTEM_PROMPT, displayKind: 'hidden', timestamp: t - 1000 });
    }
    messages.push({
      role: 'user',
      content: question,
      timestamp: t,
      tokenCount: demoTokens(question),
      platformMessageId: `${conversation.id}-u${index}`,
    });
    context += demoTokens(question);
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
        timestamp: t + 2000,
      });
      messages.push({
        role: 'tool',
        toolCallId: callId,
        toolName: conversation.tool.name,
        content: conversation.tool.result,
        timestamp: t + 4000,
        tokenCount: demoTokens(conversation.tool.result),
      });
      context += demoTokens(conversation.tool.result);
    }
    const output = demoTokens(answer);
    messages.push({
      role: 'assistant',
      content: answer,
      timestamp: t + 20_000 + (answer.length % 7) * 1000,
      tokenCount: output,
      finishReason: 'stop',
    });
    const cacheRead = price.caches ? cached : 0;
    const input = context - cacheRead;
    const reasoning = price.reasons ? Math.ceil(output / 3) : 0;
    const usage: UsageDelta = {
      inputTokens: input,
      outputTokens: output,
      cacheReadTokens: cacheRead,
      reasoningTokens: reasoning,
      estimatedCostUsd:
        Math.round(((input * price.input + cacheRead * price.cacheRead + output * price.output) / 1e6) * 1e8) / 1e8,
    };
    context += output;
    cached = context;
    return { at: t, messages, usage };
  });
}

export interface DemoSeedReport {
  sessions: number;
  messages: number;
  deletions: number;
}

/**
 * A realistic dataset for a new store: two weeks of conversations in two profiles on six surfaces
 * with four models, written as they would have happened — each turn appended at its own time with
 * the usage of its model call, ends after starts, Markdown and code in some replies, CJK text, tool
 * calls, hidden scaffolding, a delegate helper, a branch, a compression chain, a handoff, and a few
 * deletions of scratch sessions (so the deletions chart has receipts to show).
 *
 * Time is replayed: the seed opens its own store on `url` with a clock it moves through the past
 * two weeks, so every timestamp, rollup and receipt lands where it would have.
 */
export async function seedDemoData(
  url: string,
  options: { now?: number; logger?: Logger } = {},
): Promise<DemoSeedReport> {
  const now = options.now ?? Date.now();
  const clock = new ManualClock(now - 14 * DAY);
  const store = await openStore({ url, clock, migrate: false, logger: options.logger ?? silentLogger });
  try {
    return await replay(store, clock, now);
  } finally {
    await store.close();
  }
}

async function replay(store: StateStore, clock: ManualClock, now: number): Promise<DemoSeedReport> {
  const list = conversations(now);
  let messageCount = 0;
  let sessions = 0;
  const revisionOf = async (id: string) => {
    const session = await store.sessions.get(api, id);
    return { ifMatch: session.revision, expectedGeneration: session.generation };
  };
  for (const conversation of [...list].sort((a, b) => a.start - b.start)) {
    clock.set(conversation.start - 5000);
    const created = await store.sessions.create(api, {
      id: conversation.id,
      profile: conversation.profile,
      source: conversation.source,
      title: conversation.title,
      titleSource: conversation.title ? 'llm' : undefined,
      model: conversation.model,
      sessionKey: conversation.sessionKey,
      chatType: conversation.chatType,
      chatId: conversation.chatId,
      userId: conversation.userId,
      parentSessionId: conversation.parent?.id,
      lineageKind: conversation.parent?.kind,
    });
    sessions++;
    if (created.sessionKey) {
      await store.routes.set(api, { profile: created.profile, sessionKey: created.sessionKey, sessionId: created.id });
    }
    let last = conversation.start;
    for (const turn of turnsOf(conversation)) {
      last = Math.max(...turn.messages.map((message) => Number(message.timestamp)));
      clock.set(last);
      await store.messages.append(api, conversation.id, {
        messages: turn.messages,
        usage: turn.usage,
        model: conversation.model,
      });
      messageCount += turn.messages.length;
    }
    if (conversation.ended) {
      clock.set(last + 3 * MINUTE);
      await store.sessions.end(api, conversation.id, { reason: conversation.ended }, await revisionOf(conversation.id));
    }
  }

  // A long conversation compressed twice (its route follows the tip), with a branch off the middle.
  const chainStart = list.find((c) => c.id === 'demo-support-02')!;
  clock.set(chainStart.start + chainStart.turns.length * chainStart.gap + 10 * MINUTE);
  const first = await store.lineage.compress(
    api,
    'demo-support-02',
    {
      summary: 'Summary: the status-page write-up of the 02:10–02:45 UTC outage (pool size typo) and its action items.',
      keepLastMessages: 2,
      childId: 'demo-support-02-c1',
    },
    await revisionOf('demo-support-02'),
  );
  const follow = async (id: string, model: string, turns: [string, string][]) => {
    for (const [question, answer] of turns) {
      clock.advance(5 * MINUTE);
      const output = demoTokens(answer);
      const price = MODELS[model];
      const input = 400 + demoTokens(question);
      await store.messages.append(api, id, {
        messages: [
          { role: 'user', content: question, tokenCount: demoTokens(question) },
          { role: 'assistant', content: answer, tokenCount: output, finishReason: 'stop' },
        ],
        usage: {
          inputTokens: input,
          outputTokens: output,
          estimatedCostUsd: Math.round(((input * price.input + output * price.output) / 1e6) * 1e8) / 1e8,
        },
      });
      messageCount += 2;
    }
  };
  await follow(first.child.id, chainStart.model, [
    [
      'Can you also draft the internal postmortem?',
      'Drafted: timeline, impact (35 minutes of elevated 503s), root cause, and five action items with owners.',
    ],
  ]);
  clock.advance(20 * MINUTE);
  await store.lineage.compress(
    api,
    first.child.id,
    {
      summary: 'Summary: postmortem drafted with timeline, impact, root cause and action items.',
      keepLastMessages: 1,
      childId: 'demo-support-02-c2',
    },
    await revisionOf(first.child.id),
  );
  await follow('demo-support-02-c2', chainStart.model, [
    ['Schedule the review meeting for Thursday.', 'Booked Thursday 15:00 UTC and invited the on-call rotation.'],
  ]);
  clock.advance(MINUTE);
  await store.lineage.branch(
    api,
    first.child.id,
    { childId: 'demo-support-02-branch', title: 'Postmortem — executive summary' },
    await revisionOf(first.child.id),
  );
  sessions += 3;

  // A finished handoff from Slack to the desktop app, a while after that conversation.
  const slack = list.find((c) => c.id === 'demo-support-03')!;
  clock.set(slack.start + slack.turns.length * slack.gap + 30 * MINUTE);
  await store.handoff.request(api, 'demo-support-03', 'desktop', {});
  await store.handoff.claim(api, 'demo-support-03', {});
  await store.handoff.complete(api, 'demo-support-03', {});

  await runtimeState(store, clock, list, now);

  await endFinishedConversations(store, clock, now);
  const deletions = await deleteScratch(store, clock, now);
  return { sessions, messages: messageCount, deletions };
}

/**
 * The runtime state a gateway keeps (docs/domain.md §2.2.11–§2.2.13, §12): tool pins and model
 * configuration on a CLI conversation whose sub-agent research came back (a delegation delivered)
 * while another is still running, and the chain's tip holding back compression after a failed one.
 */
async function runtimeState(store: StateStore, clock: ManualClock, list: Conversation[], now: number): Promise<void> {
  const ifMatch = async (id: string) => ({ ifMatch: (await store.sessions.get(api, id)).revision });
  const resumeAt = clock.now();
  const research = list.find((c) => c.id === 'demo-default-01-research')!;
  clock.set(research.start - MINUTE);
  await store.sessions.update(
    api,
    'demo-default-01',
    {
      toolNames: ['shell', 'read_file', 'write_file', 'web_search', 'delegate_task'],
      modelConfig: { temperature: 0.2, max_iterations: 90, reasoning_effort: 'medium' },
    },
    await ifMatch('demo-default-01'),
  );
  await store.delegations.create(api, {
    id: 'demo-default-01-rollback-research',
    originSessionId: 'demo-default-01',
    childSessionId: 'demo-default-01-research',
    task: { goal: 'Research rollback procedures for billing v2', toolsets: ['web'] },
  });
  await store.delegations.create(api, {
    id: 'demo-default-01-load-test',
    originSessionId: 'demo-default-01',
    task: { goal: 'Load-test the billing v2 canary for 30 minutes' },
  });
  clock.set(research.start + research.turns.length * research.gap + MINUTE);
  await store.delegations.complete(api, 'demo-default-01-rollback-research', {
    resultSummary: 'Rollback: redeploy the tagged image, then run the down migration; no data loss expected.',
  });
  clock.advance(MINUTE);
  const woken = await store.delegations.claim(api, 'demo-default-01-rollback-research', {
    holder: 'demo-gateway',
    leaseSeconds: 60,
  });
  await store.delegations.delivered(api, 'demo-default-01-rollback-research', { claimId: woken.claim!.claimId });
  clock.set(resumeAt);

  await store.sessions.update(
    api,
    'demo-support-02-c2',
    {
      toolNames: ['status_page', 'calendar', 'send_message'],
      // Still ahead when the demo is opened: the tip waits before it compresses again.
      compressionRetryAfter: now + 30 * MINUTE,
      compressionRetryReason: 'the summary model timed out',
    },
    await ifMatch('demo-support-02-c2'),
  );
}

/** How a conversation of each surface ends once it is over (docs/domain.md §4). */
const FINISHED_BY_SOURCE: Record<string, EndReason> = {
  telegram: 'idle_timeout',
  discord: 'idle_timeout',
  slack: 'idle_timeout',
  cli: 'cli_exit',
  api_server: 'webhook_complete',
};
/** Conversations quiet for longer than this are over; the newer ones are still going on. */
const STILL_GOING_MS = 6 * HOUR;

/**
 * Every conversation that went quiet hours or days ago ends the way it would have, a while after
 * its last activity. Left open they would be orphans to the liveness sweep (docs/domain.md §10:
 * rows owned by no gateway and idle past the orphan window), which a new store starts soon after
 * seeding — the demo would show them reaped with a crash-like `startup_orphan_reap`. Only the live
 * conversations (minutes old) stay open.
 */
async function endFinishedConversations(store: StateStore, clock: ManualClock, now: number): Promise<void> {
  const open = await store.sessions.list(api, {
    status: 'open',
    archived: 'include',
    includeChildren: true,
    includeHidden: true,
    limit: 200,
    order: 'recent',
  });
  for (const item of open.items) {
    const session = await store.sessions.get(api, item.id);
    const quietSince = Date.parse(session.lastActivityAt);
    if (session.endedAt !== null || quietSince > now - STILL_GOING_MS) continue;
    clock.set(Math.min(quietSince + 45 * MINUTE, now - STILL_GOING_MS));
    await store.sessions.end(
      api,
      session.id,
      { reason: FINISHED_BY_SOURCE[session.source] ?? 'agent_close' },
      { ifMatch: session.revision, expectedGeneration: session.generation },
    );
  }
}

/**
 * Deletions over the two weeks, each leaving a receipt: a user's delete from the dashboard, an API
 * delete taking a sub-agent helper with it, an empty sweep and a ghost prune.
 */
async function deleteScratch(store: StateStore, clock: ManualClock, now: number): Promise<number> {
  const today = Math.floor(now / DAY) * DAY;
  const scratch = async (id: string, at: number, options: { messages: boolean; parent?: string; end?: boolean }) => {
    clock.set(at);
    await store.sessions.create(api, {
      id,
      profile: 'default',
      source: options.parent ? 'subagent' : 'cli',
      model: 'llama-3.3-70b',
      parentSessionId: options.parent,
      lineageKind: options.parent ? 'delegate' : undefined,
      messages: options.messages
        ? [
            { role: 'user', content: 'Scratch: try the new prompt on a throwaway session.' },
            { role: 'assistant', content: 'Done; nothing worth keeping here.', tokenCount: 8 },
          ]
        : [],
    });
    if (options.end) {
      clock.advance(MINUTE);
      const session = await store.sessions.get(api, id);
      await store.sessions.end(api, id, { reason: 'cli_close' }, { ifMatch: session.revision });
    }
  };
  // The dashboard delete is made by a person: the store's first administrator when it has one (the
  // API creates it before seeding), so the receipt names them rather than "the system".
  const person = await firstAdmin(store);
  const byPerson: OperationContext = person ? { principal: person, channel: 'dashboard' } : dashboard;
  const remove = async (ctx: OperationContext, id: string) => {
    const session = await store.sessions.get(ctx, id);
    await store.deletion.deleteOne(
      ctx,
      id,
      { includeCompressionChain: false, ifEmpty: false },
      { ifMatch: session.revision, expectedGeneration: session.generation },
    );
  };
  await scratch('demo-scratch-1', today - 11 * DAY + 10 * HOUR, { messages: true });
  clock.advance(40 * MINUTE);
  await remove(byPerson, 'demo-scratch-1');
  await scratch('demo-scratch-2', today - 7 * DAY + 15 * HOUR, { messages: true });
  await scratch('demo-scratch-2-helper', today - 7 * DAY + 15 * HOUR + 2 * MINUTE, {
    messages: true,
    parent: 'demo-scratch-2',
  });
  clock.advance(20 * MINUTE);
  await remove(api, 'demo-scratch-2');
  await scratch('demo-empty-1', today - 4 * DAY + 9 * HOUR, { messages: false, end: true });
  await scratch('demo-empty-2', today - 4 * DAY + 9 * HOUR + 5 * MINUTE, { messages: false, end: true });
  clock.set(today - 4 * DAY + 12 * HOUR);
  await store.deletion.emptySweep(api, false);
  await scratch('demo-ghost', today - 4 * DAY + 13 * HOUR, { messages: false, end: true });
  clock.set(today - 2 * DAY + 3 * HOUR);
  await store.deletion.ghostPrune(api, false);
  return 4;
}

async function firstAdmin(store: StateStore): Promise<Principal | null> {
  const admin = (await store.auth.listUsers(api)).find((user) => user.role === 'admin' && !user.disabled);
  return admin ? { kind: 'user', id: admin.id, name: admin.username, role: 'admin', profiles: admin.profiles } : null;
}
