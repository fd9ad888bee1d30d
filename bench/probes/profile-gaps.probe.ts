/**
 * Probe (diagnosis): what ran inside each event-loop gap the loop probe noted — the samples of an
 * API process's V8 CPU profile that fall inside the gap, self and inclusive time per frame. A gap's
 * time goes to whatever held the loop: JS, `(garbage collector)`, a synchronous system call under
 * the JS frame that made it. This is how the import's largest slices over HTTP were attributed
 * (docs/decisions/0021-import-preparation-off-the-event-loop.md).
 *
 *   BENCH_API_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof --import $PWD/bench/lib/clock-pair.mjs" \
 *   BENCH_CLOCK_FILE=/tmp/prof/clocks.txt BENCH_API_LOG_DIR=/tmp/logs \
 *   BENCH_ONLY=healthz-rebuild BENCH_HEALTH_JOBS=import npx tsx bench/probes/run.ts
 *   npx tsx bench/probes/profile-gaps.probe.ts /tmp/prof/CPU.….<pid>.0.001.cpuprofile \
 *     /tmp/logs/loop-import-<pid>.txt /tmp/prof/clocks.txt [min CPU ms=30] [after epoch ms=0] [frames=25]
 *
 * The main thread's profile is the one numbered `.0.`; worker threads write their own.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { url: string; functionName: string; lineNumber: number };
  children?: number[];
}

const [profileFile, gapsFile, clocksFile, minCpuArg = '30', afterArg = '0', framesArg = '25'] = process.argv.slice(2);
if (!profileFile || !gapsFile || !clocksFile) {
  console.error(
    'usage: profile-gaps.probe.ts <cpuprofile> <loop-probe file> <clock file> [min CPU ms] [after epoch ms] [frames]',
  );
  process.exit(2);
}
const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
};
// The profile's file name carries the pid: `CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`.
const pid = basename(profileFile).split('.')[3];
const pair = readFileSync(clocksFile, 'utf8')
  .split('\n')
  .map((line) => line.split(' '))
  .find((fields) => fields[0] === pid);
if (!pair) throw new Error(`no clock pair for pid ${pid} in ${clocksFile}`);
const [epochMs, monoUs] = [Number(pair[1]), Number(pair[2])];

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const frame = (node: ProfileNode) =>
  `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-3).join('/')}:${node.callFrame.lineNumber + 1}`;
// A sample's time runs until the next one.
let at = profile.startTime;
const samples = profile.samples.map((id, i) => {
  at += profile.timeDeltas[i] ?? 0;
  return { id, at, us: profile.timeDeltas[i + 1] ?? 0 };
});

const top = (totals: Map<string, number>, n: number) =>
  [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, ms]) => `    ${ms.toFixed(1).padStart(7)} ${name}`)
    .join('\n');

for (const line of readFileSync(gapsFile, 'utf8').split('\n')) {
  const [end, gap, cpu, wait] = line.split(' ').map(Number);
  if (!Number.isFinite(cpu) || cpu < Number(minCpuArg) || end < Number(afterArg)) continue;
  const toUs = monoUs + (end - epochMs) * 1000;
  const fromUs = toUs - gap * 1000;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  for (const sample of samples) {
    if (sample.at < fromUs || sample.at > toUs) continue;
    const ms = sample.us / 1000;
    total += ms;
    const node = byId.get(sample.id)!;
    self.set(frame(node), (self.get(frame(node)) ?? 0) + ms);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const name = frame(byId.get(id)!);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
    }
  }
  console.log(
    `\n== gap ${gap} ms (on a CPU ${cpu}, waiting ${wait}) ending ${end}, ${((toUs - profile.startTime) / 1e6).toFixed(2)} s into the profile; ${total.toFixed(1)} ms of samples\n  self:\n${top(self, 10)}\n  inclusive:\n${top(inclusive, Number(framesArg))}`,
  );
}
