import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import express, { type Express } from 'express';
import type { Logger } from '@kg/logger';
import { problem, sendProblem } from './problem';

/**
 * The dashboard's only sources: its own bundle and its own origin. No inline script or
 * style, no third-party host (fonts and libraries are bundled).
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Paths that are never the dashboard's, whatever the method: the API, and the operational
 * endpoints (metrics live on their own port; on the public one they answer 404, not the app).
 */
const OPERATIONAL_PATHS = new Set(['/metrics', '/healthz', '/readyz']);
const isApiPath = (path: string, apiPrefix: string) =>
  path === apiPrefix || path.startsWith(`${apiPrefix}/`) || OPERATIONAL_PATHS.has(path);

/** A file changed less than this long ago may change again within the same timestamp tick. */
const RACY_MS = 1000;

/**
 * A reader of one small file that keeps its content while the file is unchanged: each call
 * stats the file and reads it again only when its inode, size, mtime or ctime differ from the
 * cached copy's. scripts/dashboard/build.sh swaps index.html by rename (a new inode), and an
 * edit in place moves mtime and ctime, so the next call after a rebuild returns the new file.
 * File timestamps are coarse (a clock tick, a second on some file systems), so a change within
 * the same tick could keep every field as it was: a file changed less than RACY_MS ago is not
 * cached (git's "racy" rule). Throws like `statSync` when the file is missing.
 */
export function cachedFileReader(
  file: string,
  { read = readFileSync, now = Date.now }: { read?: (file: string) => Buffer; now?: () => number } = {},
): () => Buffer {
  let cached: { key: string; body: Buffer } | undefined;
  return () => {
    const stat = statSync(file, { bigint: true });
    const key = `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
    if (cached?.key === key) return cached.body;
    const body = read(file);
    const changedAt = Number((stat.mtimeNs > stat.ctimeNs ? stat.mtimeNs : stat.ctimeNs) / 1_000_000n);
    cached = now() - changedAt >= RACY_MS ? { key, body } : undefined;
    return body;
  };
}

/**
 * Serves the built dashboard (clients/dashboard/dist) at `/`: hashed files under /assets/
 * cached for a year as immutable, index.html never cached (a deploy takes effect on the next
 * load), and index.html for every other GET outside the API so the app's own paths
 * (/graph, /sign-in#token=…, /auth/callback) open on reload. Without a build, those paths
 * answer 503 naming the command that builds it.
 */
export function mountDashboard(app: Express, dir: string, apiPrefix: string, logger: Logger): void {
  const indexFile = join(dir, 'index.html');
  const readIndex = cachedFileReader(indexFile);
  if (!existsSync(indexFile))
    logger.warn({ dir }, 'dashboard not built: run `npm run build:dashboard` to serve it at /');

  app.use(
    '/assets',
    express.static(join(dir, 'assets'), {
      index: false,
      immutable: true,
      maxAge: '365d',
      redirect: false,
    }),
  );
  app.use('/assets', (req, res) => sendProblem(res, problem(404, 'Not found', `No file at ${req.originalUrl}`)));
  app.use(
    express.static(dir, {
      index: false,
      redirect: false,
      setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
    }),
  );
  // The Web Share Target (manifest.webmanifest) posts to /share, which the dashboard's service
  // worker answers. A browser without it (a share before the app was first opened) reaches the
  // server instead: nothing is kept or created from a bare form post (any site can send one);
  // the page says to open the app once and share again.
  app.post('/share', (req, res) => {
    req.resume();
    res.setHeader('Cache-Control', 'no-store').redirect(303, '/share?unsupported=1');
  });
  app.get('/{*path}', (req, res, next) => {
    if (isApiPath(req.path, apiPrefix)) return next();
    // Checked on every request (a stat), read again only when it changed: a rebuild takes
    // effect on the next load.
    let index: Buffer;
    try {
      index = readIndex();
    } catch {
      sendProblem(res, problem(503, 'Dashboard not built', 'Run `npm run build:dashboard`, then reload.'));
      return;
    }
    res
      .status(200)
      .setHeader('Content-Security-Policy', DASHBOARD_CSP)
      .setHeader('Cache-Control', 'no-cache')
      .setHeader('Referrer-Policy', 'no-referrer')
      .type('html')
      .send(index);
  });
}
