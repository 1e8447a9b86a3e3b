// The page-tools engine's benchmarks, for scripts/bench.mjs: Go benchmarks
// against a real Chromium (sidecar/internal/pagetools/bench_test.go), run
// with `go test -bench` and read from its output.
import { spawnSync } from 'node:child_process';
import { root } from './paths.mjs';

/** Runs the benchmarks; returns { name: { metric: value } }, e.g. r.Discover['ms-median']. */
export function pageToolsBenchmarks({ quick = false } = {}) {
  const r = spawnSync('go', ['test', '-run', '^$', '-bench', '.', '-benchtime', quick ? '10x' : '40x', './sidecar/internal/pagetools/'], {
    cwd: root, encoding: 'utf8', maxBuffer: 16 << 20,
  });
  if (r.status !== 0) throw new Error(`page-tools benchmarks failed:\n${r.stdout}\n${r.stderr}`);
  const out = {};
  for (const line of r.stdout.split('\n')) {
    const m = line.match(/^Benchmark(\S+?)(?:-\d+)?\s+\d+\s+(.*)$/);
    if (!m) continue;
    const metrics = {};
    for (const [, value, unit] of m[2].matchAll(/([-\d.]+) (\S+)/g)) metrics[unit] = Number(value);
    out[m[1]] = metrics;
  }
  return out;
}
