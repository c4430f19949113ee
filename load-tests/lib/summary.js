// handleSummary helpers: the full JSON for the benchmark report, and a short text summary
// (k6's own text summary lives in a remote jslib, which this machine cannot fetch).

const ms = (v) => (v === undefined ? '-' : `${v.toFixed(1)}ms`);

/** One line per metric that matters, plus every threshold and whether it held. */
export function textSummary(data) {
  const m = data.metrics;
  const lines = [];
  const reqs = m.http_reqs?.values;
  const dur = m.http_req_duration?.values;
  lines.push(`requests      ${reqs?.count ?? 0} (${(reqs?.rate ?? 0).toFixed(1)}/s)`);
  lines.push(
    `duration      avg ${ms(dur?.avg)}  p95 ${ms(dur?.['p(95)'])}  p99 ${ms(dur?.['p(99)'])}  max ${ms(dur?.max)}`,
  );
  lines.push(
    `failed        ${((m.http_req_failed?.values.rate ?? 0) * 100).toFixed(2)}% (${m.http_req_failed?.values.passes ?? 0} requests)`,
  );
  lines.push(
    `checks        ${((m.checks?.values.rate ?? 0) * 100).toFixed(2)}% of ${(m.checks?.values.passes ?? 0) + (m.checks?.values.fails ?? 0)}`,
  );
  for (const [name, metric] of Object.entries(m)
    .filter(([n]) => n.startsWith('kg_'))
    .sort()) {
    const v = metric.values;
    lines.push(
      metric.type === 'trend'
        ? `${name.padEnd(26)} avg ${ms(v.avg)}  p95 ${ms(v['p(95)'])}  p99 ${ms(v['p(99)'])}`
        : `${name.padEnd(26)} ${v.count ?? v.rate ?? v.value}`,
    );
  }
  lines.push('thresholds');
  for (const [name, metric] of Object.entries(m)) {
    for (const [rule, t] of Object.entries(metric.thresholds ?? {})) {
      lines.push(`  ${t.ok ? 'ok  ' : 'FAIL'} ${name} ${rule}`);
    }
  }
  return `\n${lines.join('\n')}\n\n`;
}

/** handleSummary result: JSON under RESULTS_DIR (default load-tests/results) and stdout. */
export function summaryFiles(script, data) {
  const dir = (__ENV.RESULTS_DIR || 'load-tests/results').replace(/\/+$/, '');
  return {
    [`${dir}/${script}-summary.json`]: JSON.stringify(data, null, 2),
    stdout: textSummary(data),
  };
}
