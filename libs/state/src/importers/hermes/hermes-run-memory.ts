/** What a run remembers between its units of work (dry runs write nothing, so they ask here too). */
export class RunMemory {
  /** Session id → profile, for sessions this run created or updated. */
  readonly written = new Map<string, string>();
  /** Preview of sessions written by this run (a compression continuation shows its chain's opening). */
  readonly previews = new Map<string, string | null>();

  /** Titles given by this run, per profile → session (a dry run never wrote them). */
  readonly titles = new Map<string, Map<string, string>>();

  /** Ids whose conflicting session a replace removed: writing them again counts as an update. */
  readonly replaced = new Set<string>();

  /** Dry runs: sessions a replace would have removed (with their delegate children). */
  readonly removed = new Set<string>();

  /** The compression tip of a session of the file, from the plan (a dry run cannot ask the store). */
  constructor(readonly plannedTip: (id: string) => string = (id) => id) {}

  titleHolder(profile: string, title: string): string | undefined {
    return this.titles.get(profile)?.get(title);
  }

  holdTitle(profile: string, title: string, sessionId: string): void {
    const titles = this.titles.get(profile) ?? new Map<string, string>();
    titles.set(title, sessionId);
    this.titles.set(profile, titles);
  }
}
