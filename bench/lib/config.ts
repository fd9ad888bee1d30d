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
  pg: {
    growthCheckpoints: number[];
    listCheckpoints: number[];
    search: { sessions: number; messagesPerSession: number };
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
    pg: {
      growthCheckpoints: [size(10_000), size(100_000), size(200_000)],
      listCheckpoints: [size(10_000), size(100_000)],
      search: { sessions: size(2000), messagesPerSession: 100 },
    },
  };
}
