/**
 * The share inbox the service worker keeps (public/sw.js): what the Web Share Target received,
 * until the person saves or discards it. Read through the worker's own paths under
 * /share-inbox/; without a worker controlling the page there is no inbox.
 */
export interface Share {
  id: string;
  received_at: string;
  title: string;
  text: string;
  url: string;
  file: { name: string; type: string; size: number } | null;
  /** Why the file was not kept (too large), when one was shared. */
  refused: string | null;
  files_ignored: number;
}

const INBOX = '/share-inbox/';

function controlled() {
  if (!('serviceWorker' in navigator) || !navigator.serviceWorker.controller)
    throw new Error('Shares are kept by the dashboard installed in this browser: open it once, then share again.');
}

async function inboxFetch(path: string, init?: RequestInit): Promise<Response> {
  controlled();
  const res = await fetch(`${INBOX}${path}`, { cache: 'no-store', ...init });
  // Anything but the worker's JSON (the server's page) means no inbox answered.
  if (res.status === 404) throw new Error('This share is no longer kept.');
  if (!res.ok) throw new Error(`The share inbox answered HTTP ${res.status}`);
  return res;
}

export async function readShares(): Promise<Share[]> {
  const res = await inboxFetch('');
  return ((await res.json()) as { data: Share[] }).data;
}

export async function readShare(id: string): Promise<Share> {
  if (!/^[0-9a-f-]{36}$/.test(id)) throw new Error('This share is no longer kept.');
  return (await inboxFetch(id)).json() as Promise<Share>;
}

export async function readShareFile(share: Share): Promise<File> {
  if (!share.file) throw new Error('This share has no file');
  const blob = await (await inboxFetch(`${share.id}/file`)).blob();
  return new File([blob], share.file.name, { type: share.file.type || blob.type });
}

export async function deleteShare(id: string): Promise<void> {
  await inboxFetch(id, { method: 'DELETE' });
}
