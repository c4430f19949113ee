import { lookup as dnsLookup } from 'node:dns/promises';

export type Lookup = (host: string) => Promise<readonly { address: string; family: number }[]>;

export interface DnsReplicasOptions {
  /** `http://name:port`: a name whose address records are the live replicas (a Kubernetes headless Service). */
  url: string;
  /** Used while the name resolves to nothing (or has not resolved yet): the service's ordinary URL. */
  fallback: readonly string[];
  /** How often the name is resolved again (ms). */
  refreshMs: number;
  lookup?: Lookup;
  /** A failed resolution, or a change of the replicas (a message worth a log line). */
  onChange?: (event: { urls: readonly string[] } | { err: unknown }) => void;
}

export interface DnsReplicas {
  /** The replicas' base URLs as last resolved (never empty: the fallback instead). */
  urls(): readonly string[];
  /** Resolves once now (the first answer before the first call). */
  refresh(): Promise<void>;
  close(): void;
}

const systemLookup: Lookup = (host) => dnsLookup(host, { all: true });

/**
 * The replicas behind a DNS name, resolved every `refreshMs` with the system resolver (so a
 * cluster's search domains apply): a headless Service answers one address per Ready pod. A
 * name without addresses falls back; any other failed resolution keeps the last answer.
 */
export function dnsReplicas(opts: DnsReplicasOptions): DnsReplicas {
  const base = new URL(opts.url);
  const lookup = opts.lookup ?? systemLookup;
  const port = base.port || (base.protocol === 'https:' ? '443' : '80');
  let current: readonly string[] = [];
  const refresh = async () => {
    try {
      const answers = await lookup(base.hostname);
      const urls = [
        ...new Set(answers.map((a) => `${base.protocol}//${a.family === 6 ? `[${a.address}]` : a.address}:${port}`)),
      ].sort();
      if (urls.join() !== current.join()) opts.onChange?.({ urls });
      current = urls;
    } catch (err) {
      // No address at all (a headless Service without Ready pods): the fallback. Any other
      // failure (the resolver unreachable) keeps the last answer.
      const code = (err as { code?: unknown }).code;
      if ((code === 'ENOTFOUND' || code === 'ENODATA') && current.length > 0) {
        current = [];
        opts.onChange?.({ urls: opts.fallback });
      } else opts.onChange?.({ err });
    }
  };
  const timer = setInterval(() => void refresh(), opts.refreshMs);
  timer.unref();
  return {
    urls: () => (current.length > 0 ? current : opts.fallback),
    refresh,
    close: () => clearInterval(timer),
  };
}
