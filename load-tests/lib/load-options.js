// Load presets (after grafana/quickpizza): pick one with -e PRESET=smoke|average|stress|soak.
// Every preset is bounded in time; each scenario of a script gets `weight` × the preset's VUs.

/**
 * The overall latency threshold's metric: the scenarios' requests (scenariosFor tags them), not
 * setup()'s bulk load of the tenant, whose writes on a busy CI machine alone passed 500 ms at p95.
 */
export const LATENCY = 'http_req_duration{phase:scenarios}';

/** Thresholds shared by the presets; a failed threshold makes `k6 run` exit non-zero. */
const strict = {
  http_req_failed: ['rate<0.01'],
  [LATENCY]: ['p(95)<500', 'p(99)<1000'],
  checks: ['rate>0.99'],
};

export const presets = {
  // A minute's sanity check: does it work at all, with one VU per scenario?
  smoke: {
    executor: { executor: 'constant-vus', vus: 1, duration: '30s' },
    thresholds: strict,
  },
  // The expected production load: ramp up, hold, ramp down.
  average: {
    executor: {
      executor: 'ramping-vus',
      startVUs: 0,
      stages: [
        { duration: '1m', target: 5 },
        { duration: '3m', target: 5 },
        { duration: '30s', target: 0 },
      ],
    },
    thresholds: strict,
  },
  // Above the expected load: the latency budget widens, errors must stay rare.
  stress: {
    executor: {
      executor: 'ramping-vus',
      startVUs: 0,
      stages: [
        { duration: '1m', target: 10 },
        { duration: '3m', target: 20 },
        { duration: '1m', target: 0 },
      ],
    },
    thresholds: {
      http_req_failed: ['rate<0.05'],
      [LATENCY]: ['p(95)<1500', 'p(99)<3000'],
      checks: ['rate>0.95'],
    },
  },
  // The average load held for long: leaks, growing queues, slow drift.
  soak: {
    executor: { executor: 'constant-vus', vus: 4, duration: '30m' },
    thresholds: strict,
  },
};

/** The preset named by PRESET (default smoke). */
export function preset(name = __ENV.PRESET || 'smoke') {
  const p = presets[name];
  if (!p) throw new Error(`unknown PRESET ${name} (smoke, average, stress, soak)`);
  return p;
}

/** Scales a VU count by a scenario weight (at least 1 VU). */
const scale = (vus, weight) => Math.max(1, Math.round(vus * weight));

/**
 * Named scenarios for a script: `{ name: { exec, weight } }` → k6 scenarios that all run
 * the preset's shape, each with its share of VUs, all starting together.
 */
export function scenariosFor(p, execs) {
  const scenarios = {};
  for (const [name, { exec, weight = 1 }] of Object.entries(execs)) {
    const e = p.executor;
    scenarios[name] =
      e.executor === 'constant-vus'
        ? {
            executor: 'constant-vus',
            exec,
            tags: { phase: 'scenarios' },
            vus: scale(e.vus, weight),
            duration: e.duration,
            gracefulStop: '10s',
          }
        : {
            executor: 'ramping-vus',
            exec,
            tags: { phase: 'scenarios' },
            startVUs: 0,
            stages: e.stages.map((s) => ({ duration: s.duration, target: s.target && scale(s.target, weight) })),
            gracefulRampDown: '10s',
            gracefulStop: '10s',
          };
  }
  return scenarios;
}
