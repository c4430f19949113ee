import { inFlight, type Followed } from '../../src/followed';

export function link(href: string, text: string): HTMLAnchorElement {
  const a = document.createElement('a');
  a.href = href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  a.textContent = text;
  return a;
}

const STATUS: Record<Followed['status'], string> = {
  pending: 'waiting to be processed…',
  processing: 'being processed…',
  processed: 'processed',
  failed: 'failed',
  archived: 'archived',
  dismissed: 'dismissed',
};

/**
 * The captures followed, newest first: title, status, a link to the capture and, once
 * processed, to its node in the dashboard; a failure with its error and Retry. Drawn whole
 * from the stored list each time (one item per capture, however often it is redrawn). Every
 * address is the configured server's, with the ids the server gave.
 */
export function renderFollowed(
  list: HTMLElement,
  followed: Followed[],
  server: string | null,
  retry: (id: string) => Promise<void>,
): void {
  list.hidden = followed.length === 0;
  list.replaceChildren(
    ...followed.map((f) => {
      const li = document.createElement('li');
      li.dataset['capture'] = f.id;
      li.dataset['status'] = f.deleted ? 'deleted' : f.status;
      const title = document.createElement('strong');
      title.textContent = f.title;
      li.append(title, ` — ${f.deleted ? 'deleted' : STATUS[f.status]}`);
      if (f.deleted || !server) return li;
      li.append(' ', link(`${server}/captures/${encodeURIComponent(f.id)}`, 'Open the capture'));
      const node = f.node_ids[0];
      if (node && !inFlight(f)) li.append(' · ', link(`${server}/nodes/${encodeURIComponent(node)}`, 'Open its node'));
      if (f.status === 'failed') {
        const why = document.createElement('p');
        why.className = 'error';
        why.textContent = `Failed: ${f.error ?? 'no reason given'}`;
        const button = document.createElement('button');
        button.type = 'button';
        button.textContent = 'Retry';
        button.addEventListener('click', () => {
          button.disabled = true;
          void retry(f.id).finally(() => (button.disabled = false));
        });
        li.append(why, button);
      }
      return li;
    }),
  );
}
