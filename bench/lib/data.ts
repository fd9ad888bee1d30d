import type { MessageInput } from '@statehouse/contracts';
import { Rng, Zipf } from './rng.js';
import { CJK_PHRASES, IDENT_STEMS, IDENT_SUFFIXES, RARE_WORDS, WORDS } from './words.js';

/** Queries whose hit counts the data below is shaped for (reported next to each search figure). */
export const QUERIES = {
  /** Zipf rank 14: in roughly one message in six. */
  common: 'file',
  /** One of 30 rare words: a handful of messages each. */
  rare: 'quetzal',
  /** A 4-letter fragment inside words (configuration, confirm, conference, config…). */
  substring: 'onfi',
  /** Three CJK characters (database), inside text without spaces. */
  cjk: '数据库',
} as const;

const TOOL_NAMES = ['bash', 'read_file', 'write_file', 'web_search', 'grep'];

/**
 * Realistic varied chat text from a seeded PRNG: ~100 characters of Zipf-distributed English words,
 * some identifiers and numbers, a rare word now and then, and ~2 % CJK messages.
 */
export class MessageFactory {
  readonly #rng: Rng;
  readonly #zipf = new Zipf(WORDS.length, 1);
  #turn = 0;

  constructor(seed = 42) {
    this.#rng = new Rng(seed);
  }

  text(targetLength = this.#rng.int(60, 140)): string {
    const rng = this.#rng;
    if (rng.chance(0.02)) return this.#cjk(targetLength);
    const parts: string[] = [];
    let length = 0;
    let sentenceStart = true;
    while (length < targetLength) {
      let word: string;
      const roll = rng.next();
      if (roll < 0.0002) word = rng.pick(RARE_WORDS);
      else if (roll < 0.0287) word = `${rng.pick(IDENT_STEMS)}${rng.int(1, 9999)}${rng.pick(IDENT_SUFFIXES)}`;
      else if (roll < 0.0437) word = String(rng.int(0, 5000));
      else word = WORDS[this.#zipf.sample(rng)];
      if (sentenceStart) word = word[0].toUpperCase() + word.slice(1);
      sentenceStart = false;
      if (rng.chance(0.08)) {
        word += rng.pick(['.', '.', ',', ',', '?', '!', ':']);
        sentenceStart = /[.?!]$/.test(word);
      }
      parts.push(word);
      length += word.length + 1;
    }
    const text = parts.join(' ');
    return /[.?!]$/.test(text) ? text : `${text}${rng.pick(['.', '.', '?', '!'])}`;
  }

  #cjk(targetLength: number): string {
    const parts: string[] = [];
    let length = 0;
    // CJK characters are ~3 bytes each: a third of the characters is about the same size on disk.
    while (length < targetLength / 2.5) {
      const phrase = this.#rng.pick(CJK_PHRASES);
      parts.push(phrase);
      length += phrase.length + 1;
    }
    return `${parts.join('，')}。`;
  }

  /** A conversation turn: user / assistant alternating, with occasional tool calls and tool rows. */
  message(): MessageInput {
    const rng = this.#rng;
    const turn = this.#turn++;
    if (turn % 2 === 0) return { role: 'user', content: this.text() };
    if (rng.chance(0.1)) {
      return {
        role: 'tool',
        toolName: rng.pick(TOOL_NAMES),
        toolCallId: `call_${turn}`,
        content: this.text(rng.int(80, 200)),
      };
    }
    const message: MessageInput = { role: 'assistant', content: this.text(), tokenCount: rng.int(10, 400) };
    if (rng.chance(0.08)) {
      message.toolCalls = [{ id: `call_${turn}`, name: rng.pick(TOOL_NAMES), arguments: { path: 'src/app.ts' } }];
    }
    return message;
  }

  messages(count: number): MessageInput[] {
    return Array.from({ length: count }, () => this.message());
  }
}

export const PROFILES = ['default', 'work', 'ops'] as const;
const SOURCES = ['cli', 'telegram', 'discord', 'slack', 'api', 'cron', 'subagent'];

/** A session row for bulk setup (list benchmark): the columns the store itself writes. */
export interface SessionSeedRow {
  id: string;
  profile: string;
  source: string;
  created_source: string;
  title: string | null;
  title_source: string | null;
  parent_session_id: string | null;
  lineage_kind: string | null;
  model: string | null;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  last_activity_at: number;
  archived: 0 | 1;
  pinned: 0 | 1;
  hidden: 0 | 1;
  /** Sub-agent conversation (a delegate): the list leaves these out by default. */
  delegated: 0 | 1;
  message_count: number;
  tool_call_count: number;
  input_tokens: number;
  output_tokens: number;
  preview: string | null;
  revision: number;
}

/**
 * Sessions over the last 90 days, with the shapes the list has to handle: 3 % archived, 1 % hidden,
 * 5 % delegate children (excluded by default), 5 % compression continuations (their parent is
 * ended by compression and projected onto the tip), titles on most rows.
 */
export class SessionFactory {
  readonly #rng: Rng;
  readonly #text: MessageFactory;
  readonly #now: number;
  #count = 0;
  readonly #recent: SessionSeedRow[] = [];

  constructor(seed = 7, now = Date.now()) {
    this.#rng = new Rng(seed);
    this.#text = new MessageFactory(seed + 1);
    this.#now = now;
  }

  /** `prefix` keeps ids unique across calls and readable in the database. */
  rows(count: number, prefix = 'bench'): SessionSeedRow[] {
    const rng = this.#rng;
    const rows: SessionSeedRow[] = [];
    // Parents come from this call only: rows of an earlier call are already written.
    this.#recent.length = 0;
    for (let i = 0; i < count; i++) {
      const n = this.#count++;
      const started = this.#now - rng.int(0, 90 * 24 * 3600 * 1000);
      const source = rng.pick(SOURCES.slice(0, 5));
      const row: SessionSeedRow = {
        id: `${prefix}-${n.toString(36).padStart(6, '0')}`,
        profile: PROFILES[rng.next() < 0.7 ? 0 : rng.next() < 0.66 ? 1 : 2],
        source,
        created_source: source,
        title: rng.chance(0.6) ? `${this.#text.text(rng.int(15, 40)).replace(/[.?!]$/, '')} #${n}` : null,
        title_source: null,
        parent_session_id: null,
        lineage_kind: null,
        model: rng.pick(['gpt-5', 'claude-sonnet-5', 'llama-4-70b', null]),
        started_at: started,
        ended_at: rng.chance(0.5) ? started + rng.int(60_000, 3_600_000) : null,
        end_reason: null,
        last_activity_at: started + rng.int(0, 3_600_000),
        archived: rng.chance(0.03) ? 1 : 0,
        pinned: rng.chance(0.01) ? 1 : 0,
        hidden: rng.chance(0.01) ? 1 : 0,
        delegated: 0,
        message_count: rng.int(1, 400),
        tool_call_count: rng.int(0, 40),
        input_tokens: rng.int(100, 200_000),
        output_tokens: rng.int(100, 50_000),
        preview: this.#text.text(rng.int(40, 200)),
        revision: rng.int(1, 50),
      };
      if (row.title) row.title_source = 'user';
      if (row.ended_at !== null) row.end_reason = 'user';
      const parent = this.#recent.length ? rng.pick(this.#recent) : undefined;
      const lineage = rng.next();
      if (parent && lineage < 0.05) {
        row.parent_session_id = parent.id;
        row.lineage_kind = 'delegate';
        row.delegated = 1;
        row.source = 'subagent';
        row.created_source = 'subagent';
        row.profile = parent.profile;
      } else if (parent && lineage < 0.1 && parent.lineage_kind !== 'delegate' && parent.end_reason !== 'compression') {
        // A compression continuation: the parent ends by compression, the child carries on.
        parent.ended_at = parent.ended_at ?? parent.started_at + 60_000;
        parent.end_reason = 'compression';
        row.parent_session_id = parent.id;
        row.lineage_kind = 'compression';
        row.profile = parent.profile;
        row.started_at = Math.max(row.started_at, parent.ended_at);
        row.last_activity_at = Math.max(row.last_activity_at, row.started_at);
        if (row.title) row.title = `${row.title} (cont.)`;
      }
      rows.push(row);
      this.#recent.push(row);
      if (this.#recent.length > 200) this.#recent.shift();
    }
    return rows;
  }
}
