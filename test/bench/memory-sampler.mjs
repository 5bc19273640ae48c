// Preload for the BFF (investigation only): every 50 ms, one JSON line with the process's RSS
// (anonymous / file-backed), V8's heap and each heap space (size and used, MiB), stamped with the
// monotonic clock in µs (the clock of BENCH_MARKS=1). Used for (c) in RESULTS-payments.md:
//   BENCH_MARKS=1 BENCH_BFF_ENV='{"MEMORY_SAMPLES":"/tmp/samples.jsonl"}' \
//   BENCH_BFF_NODE_FLAGS="--max-semi-space-size=16 --import ./test/bench/memory-sampler.mjs" \
//   node bench/payments.bench.ts list --db postgres --rows 1000000 --samples 20
import { appendFileSync, readFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const out = process.env.MEMORY_SAMPLES ?? `/tmp/paydesk-memory-${process.pid}.jsonl`;
const mib = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;
const statusKiB = (text, field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(text)?.[1]);

function sample() {
  const memory = process.memoryUsage();
  const status = readFileSync('/proc/self/status', 'utf8');
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [
      s.space_name,
      [mib(s.space_size), mib(s.space_used_size)],
    ]),
  );
  const line = {
    t: Number(process.hrtime.bigint() / 1000n),
    rss: mib(memory.rss),
    anon: Math.round(statusKiB(status, 'RssAnon') / 1024),
    file: Math.round(statusKiB(status, 'RssFile') / 1024),
    heapTotal: mib(memory.heapTotal),
    heapUsed: mib(memory.heapUsed),
    external: mib(memory.external),
    spaces,
  };
  appendFileSync(out, `${JSON.stringify(line)}\n`);
}

setInterval(sample, 50).unref();
