/*
 * The dashboard's service worker (plain JavaScript, served as is at /sw.js; registered by
 * src/pwa.ts). Two jobs, nothing else:
 *
 * 1. The app shell offline: index.html (network first, the cached copy when offline) and
 *    the hashed files under /assets/ (immutable: cache first). Never an API response, never
 *    a capture or a node: what a person keeps stays on the server.
 * 2. The Web Share Target (manifest.webmanifest, `share_target`): a share from the phone's
 *    share sheet arrives as a form POST to /share. It is kept in the share inbox (Cache
 *    Storage) and the browser is sent to /share?id=…, where the person reviews it and saves it
 *    as a capture. A POST never creates anything by itself: any page can submit a form to
 *    /share, so only the person's own click on the signed-in page does (no cross-site request
 *    forgery).
 *
 * The page reads and removes shares through this worker: GET /share-inbox/ lists them,
 * GET /share-inbox/<id> is one (JSON), GET /share-inbox/<id>/file its file, DELETE
 * /share-inbox/<id> removes it. Those paths exist only here (the server answers them with the app).
 */
const SHELL = 'kg-shell-v1';
const INBOX = 'kg-share-inbox-v1';
const INBOX_PATH = '/share-inbox/';
/** Kept shares: the newest 20, none older than 7 days. */
const MAX_SHARES = 20;
const MAX_AGE_MS = 7 * 24 * 3600 * 1000;
/** POST /captures/upload's limit (UPLOAD_MAX_BYTES by default). */
const MAX_FILE_BYTES = 25 * 1024 * 1024;
/** Longest text field kept (a capture's title is at most 500, selected text 100,000). */
const MAX_TEXT = 100000;
/** Paths that are the server's, never the app's. */
const SERVER_PATHS = ['/api/', '/healthz', '/readyz', '/metrics'];

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(SHELL);
      const index = await fetch('/', { cache: 'no-store' });
      if (index.ok) {
        const html = await index.clone().text();
        await cache.put('/', index);
        const files = [...html.matchAll(/(?:src|href)="(\/(?:assets\/[^"]+|favicon\.svg|manifest\.webmanifest))"/g)];
        await Promise.all(files.map(([, path]) => cache.add(path).catch(() => undefined)));
      }
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== SHELL && name !== INBOX) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname === '/share' && request.method === 'POST') return event.respondWith(receiveShare(request));
  if (url.pathname.startsWith(INBOX_PATH)) return event.respondWith(inbox(request, url));
  if (request.method !== 'GET' || SERVER_PATHS.some((p) => url.pathname === p || url.pathname.startsWith(p))) return;
  if (url.pathname.startsWith('/assets/')) return event.respondWith(cacheFirst(request));
  if (request.mode === 'navigate') return event.respondWith(shellFirstFromNetwork(request));
});

async function cacheFirst(request) {
  const cache = await caches.open(SHELL);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

/** The app's pages: the server's answer, kept as the offline copy; the kept copy when offline. */
async function shellFirstFromNetwork(request) {
  const cache = await caches.open(SHELL);
  try {
    const response = await fetch(request);
    const html = (response.headers.get('content-type') || '').startsWith('text/html');
    if (response.status === 200 && html) await cache.put('/', response.clone());
    return response;
  } catch (err) {
    const kept = await cache.match('/');
    if (kept) return kept;
    throw err;
  }
}

const text = (form, name) => {
  const value = form.get(name);
  return typeof value === 'string' ? value.slice(0, MAX_TEXT) : '';
};

const json = (body, status = 200) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  });

async function receiveShare(request) {
  const declared = Number(request.headers.get('content-length') || 0);
  if (declared > MAX_FILE_BYTES + 2 * MAX_TEXT * 4) return Response.redirect('/share?error=too-large', 303);
  let form;
  try {
    form = await request.formData();
  } catch {
    return Response.redirect('/share?error=unreadable', 303);
  }
  const files = form.getAll('file').filter((f) => typeof f !== 'string' && f.size > 0);
  const share = {
    id: self.crypto.randomUUID(),
    received_at: new Date().toISOString(),
    title: text(form, 'title'),
    text: text(form, 'text'),
    url: text(form, 'url'),
    file: null,
    refused: null,
    files_ignored: Math.max(0, files.length - 1),
  };
  const file = files[0];
  if (file && file.size > MAX_FILE_BYTES)
    share.refused = `The file ${file.name.slice(0, 255)} is larger than the 25 MiB a capture may hold`;
  else if (file) share.file = { name: file.name.slice(0, 255), type: file.type, size: file.size };
  const cache = await caches.open(INBOX);
  if (share.file)
    await cache.put(
      `${INBOX_PATH}${share.id}/file`,
      new Response(file, { headers: { 'content-type': file.type || 'application/octet-stream' } }),
    );
  await cache.put(`${INBOX_PATH}${share.id}`, json(share));
  await prune(cache);
  return Response.redirect(`/share?id=${share.id}`, 303);
}

/** The shares kept, newest first; the oldest beyond MAX_SHARES or MAX_AGE_MS are removed. */
async function prune(cache) {
  const shares = await list(cache);
  const now = Date.now();
  const kept = [];
  for (const share of shares) {
    if (kept.length < MAX_SHARES && now - Date.parse(share.received_at) < MAX_AGE_MS) kept.push(share);
    else await remove(cache, share.id);
  }
  return kept;
}

async function list(cache) {
  const shares = [];
  for (const key of await cache.keys()) {
    const path = new URL(key.url).pathname;
    if (path.endsWith('/file')) continue;
    const share = await (await cache.match(key)).json().catch(() => null);
    if (share && typeof share.id === 'string') shares.push(share);
  }
  return shares.sort((a, b) => b.received_at.localeCompare(a.received_at));
}

async function remove(cache, id) {
  await cache.delete(`${INBOX_PATH}${id}`);
  await cache.delete(`${INBOX_PATH}${id}/file`);
}

async function inbox(request, url) {
  const cache = await caches.open(INBOX);
  const rest = url.pathname.slice(INBOX_PATH.length);
  if (rest === '' && request.method === 'GET') return json({ data: await prune(cache) });
  const [id, part] = rest.split('/');
  if (!/^[0-9a-f-]{36}$/.test(id || '')) return json({ title: 'Not found' }, 404);
  if (request.method === 'DELETE' && !part) {
    await remove(cache, id);
    return new Response(null, { status: 204 });
  }
  if (request.method !== 'GET' || (part && part !== 'file')) return json({ title: 'Method not allowed' }, 405);
  const kept = await cache.match(`${INBOX_PATH}${id}${part ? '/file' : ''}`);
  return kept || json({ title: 'Not found', detail: 'This share is no longer kept.' }, 404);
}
