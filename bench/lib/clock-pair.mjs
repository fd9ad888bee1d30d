/**
 * Preloaded beside lib/loop-probe.mjs for diagnosis (`BENCH_API_NODE_ARGS="--cpu-prof --import
 * …/clock-pair.mjs"`): one line `<pid> <epoch ms> <CLOCK_MONOTONIC µs>` appended to
 * BENCH_CLOCK_FILE, so the loop probe's gaps (epoch ms) can be placed on a V8 CPU profile's sample
 * times (monotonic µs, process.hrtime's clock) by bench/probes/profile-gaps.probe.ts.
 */
import { appendFileSync } from 'node:fs';

const file = process.env.BENCH_CLOCK_FILE;
if (file) appendFileSync(file, `${process.pid} ${Date.now()} ${process.hrtime.bigint() / 1000n}\n`);
