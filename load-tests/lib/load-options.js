// Load presets (after grafana/quickpizza): pick one with -e PRESET=smoke|average|stress|soak.
const thresholds = {
  http_req_failed: ['rate<0.01'],
  http_req_duration: ['p(95)<300', 'p(99)<800'],
  checks: ['rate>0.99'],
};

export const presets = {
  smoke: { vus: 2, duration: '20s', thresholds },
  average: {
    stages: [
      { duration: '30s', target: 10 },
      { duration: '2m', target: 10 },
      { duration: '30s', target: 0 },
    ],
    thresholds,
  },
  stress: {
    stages: [
      { duration: '30s', target: 20 },
      { duration: '2m', target: 40 },
      { duration: '30s', target: 0 },
    ],
    thresholds: { ...thresholds, http_req_duration: ['p(95)<800', 'p(99)<2000'] },
  },
  soak: { vus: 8, duration: '20m', thresholds },
};

export function options(name) {
  const preset = presets[name ?? 'smoke'];
  if (!preset) throw new Error(`unknown preset ${name}`);
  return preset;
}
