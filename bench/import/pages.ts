import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The web the imported bookmarks point at: one server on 0.0.0.0, reached through many loopback
 * addresses (127.0.0.1, 127.0.0.2, …: every 127/8 address is this machine), each a host of its
 * own for the fetch stage's per-host limits. Page `i` is an article of a few paragraphs, distinct
 * per page, so each capture is extracted, embedded and linked like a real one.
 */
export interface PageServer {
  port: number;
  /** Requests answered, by Host header. */
  hits: Map<string, number>;
  /** Most requests to one host at once, by host. */
  peakPerHost: Map<string, number>;
  close(): Promise<void>;
}

const TOPICS = [
  'graph databases',
  'spaced repetition',
  'type systems',
  'distributed consensus',
  'vector search',
  'note-taking methods',
  'compilers',
  'stream processing',
  'garden design',
  'sourdough baking',
];

export function page(i: number): { title: string; html: string } {
  const topic = TOPICS[i % TOPICS.length]!;
  const title = `Bookmark ${i}: notes on ${topic}`;
  const paragraphs = Array.from(
    { length: 4 },
    (_, p) =>
      `<p>Article ${i}, part ${p + 1}, is about ${topic}. It compares approach ${(i * 7 + p) % 13} with approach ` +
      `${(i * 11 + p) % 17}, and explains why reading ${i % 97} matters for anyone who keeps notes on ${topic}.</p>`,
  ).join('\n');
  return {
    title,
    html: `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><article><h1>${title}</h1>\n${paragraphs}\n</article></body></html>`,
  };
}

export async function startPageServer(): Promise<PageServer> {
  const hits = new Map<string, number>();
  const peakPerHost = new Map<string, number>();
  const open = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    hits.set(host, (hits.get(host) ?? 0) + 1);
    const now = (open.get(host) ?? 0) + 1;
    open.set(host, now);
    peakPerHost.set(host, Math.max(peakPerHost.get(host) ?? 0, now));
    res.on('close', () => open.set(host, (open.get(host) ?? 1) - 1));
    const m = /^\/b\/(\d+)$/.exec(req.url ?? '');
    if (!m) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const { html } = page(Number(m[1]));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    peakPerHost,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
