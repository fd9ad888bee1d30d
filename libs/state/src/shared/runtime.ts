/**
 * Windows of the gateway runtime contract (docs/domain.md §10), set per process by its host (the
 * API reads them from the environment) and injected so tests can make them short.
 */
export interface RuntimeWindows {
  /** A gateway is alive while its last heartbeat is at most this old. */
  gatewayTimeoutMs: number;
  /** Open rows owned by no gateway and idle this long are reaped (0: never). */
  orphanIdleMs: number;
  /** A `running` handoff older than this becomes `failed` (`expired`). */
  handoffTimeoutMs: number;
}

export const DEFAULT_RUNTIME_WINDOWS: RuntimeWindows = {
  gatewayTimeoutMs: 90_000,
  orphanIdleMs: 24 * 60 * 60 * 1000,
  handoffTimeoutMs: 10 * 60 * 1000,
};
