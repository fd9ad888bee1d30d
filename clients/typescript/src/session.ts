import type { StatehouseClient } from './client.js';
import { isProblem } from './errors.js';
import type { AnswerOf, BodyOf, CallOptions, ItemOf, RequestOf } from './types.js';

/** A session as the API answers it (`GET /v1/sessions/{id}`). */
export type Session = AnswerOf<'/v1/sessions/{id}', 'get'>;
/** A transcript message. */
export type Message = ItemOf<'/v1/sessions/{id}/messages'>;
/** A turn lease as `POST /v1/sessions/{id}/turns` answers it. */
export type Turn = AnswerOf<'/v1/sessions/{id}/turns', 'post'>;
export type AppendRequest = BodyOf<'/v1/sessions/{id}/messages', 'post'>;
export type AppendAnswer = AnswerOf<'/v1/sessions/{id}/messages', 'post'>;

/** What a handle knows about its session: each field is learnt from answers and may be unknown. */
export interface SessionState {
  /** The revision the next `If-Match` presents (from `revision` bodies, `ETag`, `currentRevision`). */
  revision?: number;
  /** The fencing generation (from `generation` bodies, a begun turn, `currentGeneration`). */
  generation?: number;
  /** The turn this handle holds (begun here, not completed, not superseded as far as it knows). */
  turnId?: string | null;
}

/** How an append is fenced (docs/api.md, Revisions and preconditions). */
export type AppendFence =
  /**
   * `X-Turn-Id` when the handle holds a turn, and `X-Expected-Generation` when it knows one
   * (default). Both: the API checks a turn only while some lease is live, a generation always — so
   * a turn that expired and was superseded by one already completed is still fenced out.
   */
  | 'auto'
  /** `X-Expected-Generation` only (a writer that does not hold the lease, but holds the generation). */
  | 'generation'
  /** No fencing header: outside a live lease, the API appends; during one it answers `session_busy`. */
  | 'none';

type DeleteQuery = NonNullable<NonNullable<RequestOf<'/v1/sessions/{id}', 'delete'>['params']>['query']>;
type MessagesQuery = NonNullable<NonNullable<RequestOf<'/v1/sessions/{id}/messages', 'get'>['params']>['query']>;

/**
 * One session, with the revision, generation and turn it last saw carried from every answer and
 * presented as each operation needs them (docs/clients.md, Fencing recipes):
 *
 * - mutations present `If-Match: "<revision>"` (reading the session first when the revision is unknown);
 * - destructive ones (delete, rewind, reset, branch, compress) also `X-Expected-Generation`;
 * - while the handle holds a turn, every write presents `X-Turn-Id` (appends, ends and reopens
 *   with the generation too);
 * - a `revision_conflict` or `stale_generation` answer updates what the handle knows before it is
 *   thrown (a superseded turn is forgotten), so `refresh()` then a retry is the whole recovery.
 */
export class SessionHandle {
  revision: number | undefined;
  generation: number | undefined;
  turnId: string | null;
  /** The session as last read or returned whole (`refresh`, `update`, `end`, …). */
  session: Session | undefined;

  constructor(
    private readonly client: StatehouseClient,
    readonly id: string,
    known: SessionState = {},
  ) {
    this.revision = known.revision;
    this.generation = known.generation;
    this.turnId = known.turnId ?? null;
  }

  /** What the handle knows now (to persist it, or to hand it to another handle). */
  get state(): Required<SessionState> {
    return { revision: this.revision as number, generation: this.generation as number, turnId: this.turnId };
  }

  private get path() {
    return { params: { path: { id: this.id } } } as const;
  }

  /** Reads the session and learns its revision, generation and lease (`GET /v1/sessions/{id}`). */
  async refresh(options: CallOptions = {}): Promise<Session> {
    const { data, response } = await this.guard(() =>
      this.client.exchange('get', '/v1/sessions/{id}', { ...this.path, ...options }),
    );
    this.learnSession(data);
    this.learnEtag(response);
    // A lease that is not ours (or none) means the turn this handle held is over.
    const lease = (data as { turn?: { turnId: string } | null }).turn;
    if (this.turnId && lease?.turnId !== this.turnId) this.turnId = null;
    return data;
  }

  /** Takes the turn lease (`POST …/turns`): raises the generation; later writes present `X-Turn-Id`. */
  async beginTurn(body: BodyOf<'/v1/sessions/{id}/turns', 'post'>, options: CallOptions = {}): Promise<Turn> {
    const turn = await this.guard(() =>
      this.client.POST('/v1/sessions/{id}/turns', { ...this.path, body, ...options }),
    );
    this.turnId = turn.turnId;
    this.generation = turn.generation;
    this.revision = turn.revision;
    return turn;
  }

  /** Extends the held turn (`POST …/turns/{turnId}/renew`); `stale_generation` when it was superseded. */
  async renewTurn(body: BodyOf<'/v1/sessions/{id}/turns/{turnId}/renew', 'post'> = {}, options: CallOptions = {}) {
    const turnId = this.requireTurn();
    const turn = await this.guard(() =>
      this.client.POST('/v1/sessions/{id}/turns/{turnId}/renew', {
        params: { path: { id: this.id, turnId } },
        body,
        ...options,
      }),
    );
    this.learnNumbers(turn);
    return turn;
  }

  /** Releases the held turn (`POST …/complete`); completing it again is a no-op on the API. */
  async completeTurn(options: CallOptions = {}): Promise<void> {
    const turnId = this.requireTurn();
    await this.guard(() =>
      this.client.POST('/v1/sessions/{id}/turns/{turnId}/complete', {
        params: { path: { id: this.id, turnId } },
        ...options,
      }),
    );
    this.turnId = null;
    // Completing raises the revision when it released a live lease, and answers nothing: re-read when needed.
    this.revision = undefined;
  }

  /**
   * Appends messages (`POST …/messages`), fenced by the held turn or the known generation
   * (see {@link AppendFence}); learns the new revision and generation.
   */
  async append(
    body: AppendRequest,
    options: CallOptions & { fence?: AppendFence; ifMatch?: boolean } = {},
  ): Promise<AppendAnswer> {
    const { fence = 'auto', ifMatch = false, ...call } = options;
    const headers: Record<string, string> = {};
    if (fence === 'auto' && this.turnId) headers['X-Turn-Id'] = this.turnId;
    if (fence !== 'none' && this.generation !== undefined) headers['X-Expected-Generation'] = String(this.generation);
    if (ifMatch) headers['If-Match'] = `"${await this.knownRevision()}"`;
    const answer = await this.guard(() =>
      this.client.POST('/v1/sessions/{id}/messages', {
        params: { path: { id: this.id }, header: headers as never },
        body,
        ...call,
      }),
    );
    this.learnNumbers(answer);
    return answer;
  }

  /** Changes title, flags or transport (`PATCH`, with `If-Match`). */
  async update(body: BodyOf<'/v1/sessions/{id}', 'patch'>, options: CallOptions = {}): Promise<Session> {
    const headers = await this.preconditions(false);
    return this.whole(() =>
      this.client.exchange('patch', '/v1/sessions/{id}', {
        params: { path: { id: this.id }, header: headers as never },
        body,
        ...options,
      }),
    );
  }

  /** Ends the session (`POST …/end`; the first end wins). */
  async end(body: BodyOf<'/v1/sessions/{id}/end', 'post'>, options: CallOptions = {}): Promise<Session> {
    const headers = await this.preconditions(false, true);
    return this.whole(() =>
      this.client.exchange('post', '/v1/sessions/{id}/end', {
        params: { path: { id: this.id }, header: headers as never },
        body,
        ...options,
      }),
    );
  }

  /** Reopens it (`POST …/reopen`). */
  async reopen(body: BodyOf<'/v1/sessions/{id}/reopen', 'post'>, options: CallOptions = {}): Promise<Session> {
    const headers = await this.preconditions(false, true);
    return this.whole(() =>
      this.client.exchange('post', '/v1/sessions/{id}/reopen', {
        params: { path: { id: this.id }, header: headers as never },
        body,
        ...options,
      }),
    );
  }

  /** Deletes it (`DELETE`, `If-Match` + `X-Expected-Generation`); the answer carries the receipt. */
  async delete(query: DeleteQuery = {}, options: CallOptions = {}) {
    const headers = await this.preconditions(true);
    return this.guard(() =>
      this.client.DELETE('/v1/sessions/{id}', {
        params: { path: { id: this.id }, query, header: headers as never },
        ...options,
      }),
    );
  }

  /** Rewinds the transcript to a message (`POST …/rewind`, destructive). */
  async rewind(body: BodyOf<'/v1/sessions/{id}/rewind', 'post'>, options: CallOptions = {}) {
    const headers = await this.preconditions(true);
    const answer = await this.guard(() =>
      this.client.POST('/v1/sessions/{id}/rewind', {
        params: { path: { id: this.id }, header: headers as never },
        body,
        ...options,
      }),
    );
    this.learnSession(answer.session);
    return answer;
  }

  /** Compresses into a continuation (`POST …/compress`, destructive): answers `{child, parent}`. */
  async compress(body: BodyOf<'/v1/sessions/{id}/compress', 'post'>, options: CallOptions = {}) {
    const headers = await this.preconditions(true);
    const answer = await this.guard(() =>
      this.client.POST('/v1/sessions/{id}/compress', {
        params: { path: { id: this.id }, header: headers as never },
        body,
        ...options,
      }),
    );
    this.learnSession(answer.parent);
    return answer;
  }

  /** Branches a child off it (`POST …/branch`, destructive). */
  async branch(body: BodyOf<'/v1/sessions/{id}/branch', 'post'>, options: CallOptions = {}) {
    const headers = await this.preconditions(true);
    const answer = await this.guard(() =>
      this.client.POST('/v1/sessions/{id}/branch', {
        params: { path: { id: this.id }, header: headers as never },
        body,
        ...options,
      }),
    );
    this.learnSession(answer.parent);
    return answer;
  }

  /** Resets it into a new session (`POST …/reset`, destructive). */
  async reset(body: BodyOf<'/v1/sessions/{id}/reset', 'post'>, options: CallOptions = {}) {
    const headers = await this.preconditions(true);
    const answer = await this.guard(() =>
      this.client.POST('/v1/sessions/{id}/reset', {
        params: { path: { id: this.id }, header: headers as never },
        body,
        ...options,
      }),
    );
    this.learnSession(answer.parent);
    return answer;
  }

  /** The transcript, page after page as the loop asks (`GET …/messages`). */
  messages(query: MessagesQuery = {}): AsyncGenerator<Message> {
    return this.client.paginate('/v1/sessions/{id}/messages', { params: { path: { id: this.id }, query } });
  }

  /** `If-Match` (the known revision, read first when unknown), plus generation and turn as asked. */
  private async preconditions(destructive: boolean, fenced = false): Promise<Record<string, string>> {
    const headers: Record<string, string> = { 'If-Match': `"${await this.knownRevision()}"` };
    if (destructive || fenced) {
      if (this.generation === undefined) await this.refresh();
      headers['X-Expected-Generation'] = String(this.generation);
    }
    if (this.turnId) headers['X-Turn-Id'] = this.turnId;
    return headers;
  }

  private async knownRevision(): Promise<number> {
    if (this.revision === undefined) await this.refresh();
    return this.revision as number;
  }

  private requireTurn(): string {
    if (!this.turnId) throw new Error(`session ${this.id}: this handle holds no turn (beginTurn first)`);
    return this.turnId;
  }

  /** A call answering the whole session: learn it, and its ETag. */
  private async whole(call: () => Promise<{ data: Session; response: Response }>): Promise<Session> {
    const { data, response } = await this.guard(call);
    this.learnSession(data);
    this.learnEtag(response);
    return data;
  }

  /** Runs a call; a fencing refusal teaches the handle where the session is before it is rethrown. */
  private async guard<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (isProblem(error, 'revision_conflict')) {
        const current = (error.problem as { currentRevision?: number }).currentRevision;
        this.revision = typeof current === 'number' ? current : undefined;
      } else if (isProblem(error, 'stale_generation')) {
        const current = (error.problem as { currentGeneration?: number }).currentGeneration;
        this.generation = typeof current === 'number' ? current : undefined;
        // Our turn (if any) is no longer the live one; the revision moved with the newer turn.
        this.turnId = null;
        this.revision = undefined;
      }
      throw error;
    }
  }

  private learnSession(session: { revision: number; generation: number }): void {
    this.session = session as Session;
    this.learnNumbers(session);
  }

  private learnNumbers(answer: { revision?: number; generation?: number }): void {
    if (typeof answer.revision === 'number') this.revision = answer.revision;
    if (typeof answer.generation === 'number') this.generation = answer.generation;
  }

  private learnEtag(response: Response): void {
    const match = /^(?:W\/)?"?(\d+)"?$/.exec(response.headers.get('etag') ?? '');
    if (match) this.revision = Number(match[1]);
  }
}
