import { summarize, type Summary } from '../graph/stats';
import type { Tenant } from '../webhooks/traffic';

/**
 * The tenant's own reads while they wait: `GET /nodes` (the dashboard's node list, first page),
 * one at a time, one started every `everyMs` (or as soon as the previous answer is in, when it
 * took longer), until stopped. Answers other than 200 are counted apart.
 */
export function startProbe(t: Tenant, everyMs = 200) {
  const latencies: number[] = [];
  let errors = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const at = performance.now();
      try {
        const res = await fetch(`${t.api}/nodes?per_page=20`, { headers: { authorization: t.authorization } });
        await res.arrayBuffer();
        if (res.status === 200) latencies.push(performance.now() - at);
        else errors++;
      } catch {
        errors++;
      }
      const wait = everyMs - (performance.now() - at);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  return {
    async stop(): Promise<Summary & { errors: number }> {
      running = false;
      await loop;
      return { ...summarize(latencies), errors };
    },
  };
}

/** The probe alone for `ms`: the quiet baseline. */
export async function probeFor(t: Tenant, ms: number) {
  const probe = startProbe(t);
  await new Promise((r) => setTimeout(r, ms));
  return probe.stop();
}
