import { createRequire } from 'node:module';
import type { Express } from 'express';
import type { Route } from '../routes/route';
import { buildOpenApiDocument } from './document';

const require = createRequire(import.meta.url);

/** Serves /openapi.json and a readable reference page (Scalar, served locally: no CDN). */
export function mountDocs(app: Express, prefix: string, routes: Route[]): void {
  const document = buildOpenApiDocument(routes, prefix);
  const scalarBundle = require.resolve('@scalar/api-reference/browser/standalone.js');
  app.get(`${prefix}/openapi.json`, (_req, res) => {
    res.json(document);
  });
  app.get(`${prefix}/docs/scalar.js`, (_req, res) => {
    res.type('application/javascript').sendFile(scalarBundle, { maxAge: '1d' });
  });
  app.get(`${prefix}/docs`, (_req, res) => {
    res
      .type('html')
      .setHeader(
        'Content-Security-Policy',
        "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:",
      ).send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Knowledge Graph API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><script id="api-reference" data-url="${prefix}/openapi.json"></script>
<script src="${prefix}/docs/scalar.js"></script></body></html>`);
  });
}
