// Prints a short table of a k6 JSON summary (handleSummary's file): one row per scenario with
// its request count and latency (the `{scenario:…}` sub-metrics the script's thresholds define),
// the kg_ metrics, and every threshold that failed.
//
//   node scripts/tools/load-table.mjs load-tests/results/graph-summary.json
import { readFileSync } from 'node:fs';

const { metrics } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const ms = (v) => (v === undefined ? '-' : v.toFixed(1));
const rows = [['scenario', 'requests', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms']];
for (const [name, m] of Object.entries(metrics)) {
  const scenario = /^http_req_duration\{scenario:(.+)\}$/.exec(name)?.[1];
  if (!scenario) continue;
  const v = m.values;
  const count = metrics[`http_reqs{scenario:${scenario}}`]?.values.count ?? '-';
  rows.push([scenario, String(count), ms(v.med), ms(v['p(95)']), ms(v['p(99)']), ms(v.max)]);
}
const d = metrics.http_req_duration.values;
rows.push([
  'all (setup included)',
  String(metrics.http_reqs.values.count),
  ms(d.med),
  ms(d['p(95)']),
  ms(d['p(99)']),
  ms(d.max),
]);
const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
const line = (r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
console.log(['', line(rows[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n'));
const counters = Object.entries(metrics)
  .filter(([n, m]) => n.startsWith('kg_') && m.type === 'counter')
  .map(([n, m]) => `${n} ${m.values.count}`);
console.log(
  `\nfailed ${(metrics.http_req_failed.values.rate * 100).toFixed(2)}%, checks ${(metrics.checks.values.rate * 100).toFixed(2)}%; ${counters.join(', ')}`,
);
const failed = Object.entries(metrics).flatMap(([n, m]) =>
  Object.entries(m.thresholds ?? {})
    .filter(([, t]) => !t.ok)
    .map(([rule]) => `${n} ${rule}`),
);
console.log(failed.length ? `thresholds FAILED: ${failed.join('; ')}` : 'thresholds: all held');
