/** Sizes of one run. BENCH_QUICK=1 divides every data size by 10 (for development). */
export interface BenchConfig {
  quick: boolean;
  /** PostgreSQL server to create scratch databases on, if any. */
  pgUrl: string | undefined;
  append: {
    /** Sessions created before measuring (both files). */
    sessions: number;
    /** Alternating rounds store / raw; the figure is the median round. */
    rounds: number;
    singlePerRound: number;
    batchesPerRound: number;
    batchSize: number;
  };
  growth: {
    /** Store sizes (messages) at which single-message append is measured. */
    checkpoints: number[];
    buildBatch: number;
    probes: number;
  };
  list: { checkpoints: number[]; iterations: number; pageSize: number };
  search: { sessions: number; messagesPerSession: number; iterations: number; commonIterations: number };
  lineage: {
    /** Messages in each session that is compressed (figure 6). */
    compressMessages: number;
    /** Fresh sessions compressed per variant; the figure is the median. */
    compressSessions: number;
    /** Depth of the compression chain whose lineage is read (figure 7). */
    chainDepth: number;
    iterations: number;
  };
  deletion: {
    /** Messages in each session removed by a single delete (figure 8). */
    deleteMessages: number;
    deleteSessions: number;
    /** Sessions per bulk delete call, and messages in each. */
    bulkSessions: number;
    bulkMessagesPerSession: number;
    bulkRounds: number;
    /** Receipts in the store before replay (figure 9). */
    receipts: number;
    replayRounds: number;
    pageSize: number;
  };
  api: {
    /** Seconds per measured load round of one endpoint; rounds rotate the endpoint order. */
    roundSeconds: number;
    rounds: number;
    warmupSeconds: number;
    /** Concurrent keep-alive connections of the load generator. */
    connections: number;
    /** Rounds per client count of the concurrent-append figure (16). */
    appendRounds: number;
    sessions: number;
    receipts: number;
    replayRounds: number;
  };
  stats: {
    /** Messages written through the store before the overview queries are timed (figure 11). */
    messages: number;
    messagesPerSession: number;
    iterations: number;
  };
  import: {
    /** Hermes conversations of 4 sessions each (figure 12): 625 × 4 × 40 = 10⁵ messages. */
    conversations: number;
    messagesPerSession: number;
  };
  topology: {
    /** Deletions watched from the other processes (cross-replica watch delay). */
    watchedDeletes: number;
    /** Messages in the store rebuilt while /healthz is measured. */
    rebuildMessages: number;
    /** Sessions (of `retentionMessagesPerSession`) a retention pass removes while /healthz is measured. */
    retentionSessions: number;
    retentionMessagesPerSession: number;
    /** Messages of the session compressed (the rest of its archiving deferred in chunks) while /healthz is measured. */
    compressMessages: number;
    /** Messages of the session rewound to its first message while /healthz is measured. */
    rewindMessages: number;
    /** Sessions (of `bulkDeleteMessagesPerSession`) removed by bulk deletes over HTTP while /healthz is measured. */
    bulkDeleteSessions: number;
    bulkDeleteMessagesPerSession: number;
    /** Messages of the one session of a Hermes file imported over HTTP while /healthz is measured. */
    importMessages: number;
    /** Messages in the store the scheduled online backup copies while /healthz is measured. */
    backupMessages: number;
    /** Messages in the store (its FTS indexes as written, in many segments) the scheduled index maintenance optimizes. */
    maintenanceMessages: number;
    /** Seconds of append load per topology; concurrent connections. */
    appendSeconds: number;
    appendConnections: number;
  };
  pg: {
    /** Messages for the PostgreSQL overview figure (11). */
    statsMessages: number;
    growthCheckpoints: number[];
    listCheckpoints: number[];
    search: { sessions: number; messagesPerSession: number };
    lineage: { compressSessions: number; chainDepth: number };
    deletion: { deleteSessions: number; bulkRounds: number; receipts: number; replayRounds: number };
    api: { rounds: number };
  };
}

export function loadConfig(env = process.env): BenchConfig {
  const quick = env.BENCH_QUICK === '1' || env.BENCH_QUICK === 'true';
  const scale = quick ? 0.1 : 1;
  const size = (n: number) => Math.max(1, Math.round(n * scale));
  return {
    quick,
    pgUrl: env.STATEHOUSE_BENCH_PG_URL || env.STATEHOUSE_TEST_PG_URL || undefined,
    append: {
      sessions: 50,
      rounds: quick ? 3 : 11,
      singlePerRound: quick ? 200 : 500,
      batchesPerRound: quick ? 5 : 20,
      batchSize: 100,
    },
    growth: {
      checkpoints: [size(10_000), size(100_000), size(1_000_000)],
      buildBatch: 1000,
      probes: quick ? 500 : 5000,
    },
    list: { checkpoints: [size(10_000), size(100_000)], iterations: quick ? 100 : 300, pageSize: 50 },
    search: {
      sessions: size(2000),
      messagesPerSession: 100,
      iterations: quick ? 50 : 200,
      commonIterations: quick ? 20 : 60,
    },
    lineage: {
      compressMessages: size(10_000),
      compressSessions: quick ? 3 : 5,
      chainDepth: size(1000),
      iterations: quick ? 20 : 60,
    },
    deletion: {
      deleteMessages: size(10_000),
      deleteSessions: quick ? 3 : 5,
      bulkSessions: size(500),
      bulkMessagesPerSession: 4,
      bulkRounds: quick ? 2 : 3,
      receipts: size(100_000),
      replayRounds: quick ? 2 : 5,
      pageSize: 1000,
    },
    api: {
      roundSeconds: quick ? 1 : 3,
      rounds: quick ? 2 : 4,
      warmupSeconds: quick ? 1 : 2,
      connections: 16,
      appendRounds: quick ? 1 : 3,
      sessions: size(10_000),
      receipts: size(100_000),
      replayRounds: quick ? 2 : 3,
    },
    stats: { messages: size(1_000_000), messagesPerSession: 50, iterations: quick ? 30 : 100 },
    import: { conversations: size(625), messagesPerSession: 40 },
    topology: {
      watchedDeletes: quick ? 40 : 200,
      rebuildMessages: size(1_000_000),
      retentionSessions: size(4000),
      retentionMessagesPerSession: 50,
      compressMessages: size(100_000),
      rewindMessages: size(100_000),
      bulkDeleteSessions: size(2000),
      bulkDeleteMessagesPerSession: 50,
      importMessages: size(100_000),
      backupMessages: size(1_000_000),
      maintenanceMessages: size(1_000_000),
      appendSeconds: quick ? 3 : 8,
      appendConnections: 24,
    },
    pg: {
      statsMessages: size(200_000),
      growthCheckpoints: [size(10_000), size(100_000), size(200_000)],
      listCheckpoints: [size(10_000), size(100_000)],
      search: { sessions: size(2000), messagesPerSession: 100 },
      lineage: { compressSessions: 3, chainDepth: size(1000) },
      deletion: { deleteSessions: 3, bulkRounds: quick ? 2 : 3, receipts: size(100_000), replayRounds: quick ? 2 : 3 },
      api: { rounds: quick ? 2 : 3 },
    },
  };
}
