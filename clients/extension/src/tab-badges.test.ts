import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CapturedUrl } from './api';
import type { Badge } from './badge';
import { FRESH_MS, SETTLE_MS, TabBadges, type TabView } from './tab-badges';

const captured = (url: string, status: CapturedUrl['status'] = 'processed'): CapturedUrl => ({
  url,
  capture_id: 'cap_01jd8x6q1bf5r3v2m9w7k4t0za',
  status,
  captured_at: '2026-11-28T10:00:00.000Z',
});

/** A browser of tabs, a server that answers checks (held until released when `hold`), and the badges shown. */
function harness(opts: { hold?: boolean; saved?: string[]; waiting?: number } = {}) {
  const tabs = new Map<number, TabView>();
  const saved = new Set(opts.saved ?? []);
  const checks: string[] = [];
  const pending: (() => void)[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const shown = new Map<number, Badge>();
  let fail: Error | null = null;
  let waiting = opts.waiting ?? 0;
  const badges = new TabBadges({
    tab: async (id) => tabs.get(id) ?? null,
    check: async (url) => {
      checks.push(url);
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      try {
        if (opts.hold) await new Promise<void>((r) => pending.push(r));
        if (fail) throw fail;
        return saved.has(url) ? captured(url) : null;
      } finally {
        inFlight--;
      }
    },
    waiting: async () => waiting,
    show: async (tabId, badge) => void shown.set(tabId, badge),
    clock: () => Date.now(),
  });
  return {
    badges,
    tabs,
    saved,
    checks,
    shown,
    text: (tabId: number) => shown.get(tabId)?.text,
    maxInFlight: () => maxInFlight,
    release: () => pending.splice(0).forEach((r) => r()),
    failWith: (err: Error | null) => void (fail = err),
    setWaiting: (n: number) => void (waiting = n),
  };
}

const settle = () => vi.advanceTimersByTimeAsync(SETTLE_MS + 1);

describe('TabBadges', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('never asks about an address it cannot see, the browser’s own pages or a file: no badge, no error', async () => {
    const h = harness();
    const urls = [undefined, 'chrome://settings/', 'about:blank', 'about:newtab', 'file:///tmp/a.html'];
    urls.forEach((url, i) => h.tabs.set(i + 1, { url, active: true }));
    urls.forEach((_, i) => h.badges.schedule(i + 1, 'navigated'));
    await settle();
    expect(h.checks).toEqual([]);
    for (let i = 1; i <= urls.length; i++) expect(h.text(i)).toBe('');
    // The popup's question about such a tab: no answer, nothing sent.
    await expect(h.badges.now(1, undefined)).resolves.toBeNull();
    await expect(h.badges.now(2, 'chrome://settings/')).resolves.toBeNull();
    expect(h.checks).toEqual([]);
  });

  it('a navigation’s storm of events makes one check, of the address as a save stores it', async () => {
    const h = harness({ saved: ['http://127.0.0.2:4000/article#part-2'] });
    h.tabs.set(7, { url: 'http://user:secret@127.0.0.2:4000/article#part-2', active: true });
    for (let i = 0; i < 50; i++) {
      h.badges.schedule(7, i % 2 ? 'navigated' : 'changed');
      await vi.advanceTimersByTimeAsync(SETTLE_MS / 3);
    }
    expect(h.checks).toEqual([]);
    await settle();
    expect(h.checks).toEqual(['http://127.0.0.2:4000/article#part-2']);
    expect(h.text(7)).toBe('✓');
  });

  it('at most one check per tab in flight; the answer for a page left meanwhile is not shown', async () => {
    const h = harness({ hold: true, saved: ['https://a.example/'] });
    h.tabs.set(1, { url: 'https://a.example/', active: true });
    h.badges.schedule(1, 'navigated');
    await settle();
    expect(h.checks).toEqual(['https://a.example/']);
    // The tab moves on while the check is under way, twice.
    h.tabs.set(1, { url: 'https://b.example/', active: true });
    h.badges.schedule(1, 'navigated');
    await settle();
    h.tabs.set(1, { url: 'https://c.example/', active: true });
    h.badges.schedule(1, 'navigated');
    await settle();
    expect(h.checks).toEqual(['https://a.example/']);
    h.release();
    await vi.advanceTimersByTimeAsync(0);
    // a.example's ✓ is never shown on the tab now showing c.example; one run follows, for c.
    expect(h.text(1)).toBeUndefined();
    expect(h.checks).toEqual(['https://a.example/', 'https://c.example/']);
    h.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.text(1)).toBe('');
    expect(h.maxInFlight()).toBe(1);
  });

  it('a navigation’s later event while its check is under way (a slow machine) asks nothing again', async () => {
    const h = harness({ hold: true, saved: ['https://a.example/'] });
    h.tabs.set(1, { url: 'https://a.example/', active: true });
    h.badges.schedule(1, 'navigated');
    await settle();
    // `complete` comes more than SETTLE_MS after `loading`, while the check is in flight.
    h.badges.schedule(1, 'navigated');
    await settle();
    h.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.checks).toEqual(['https://a.example/']);
    expect(h.text(1)).toBe('✓');
  });

  it('switching tabs: only the active tab is checked, and a tab checked lately is not asked again', async () => {
    const h = harness({ saved: ['https://a.example/'] });
    h.tabs.set(1, { url: 'https://a.example/', active: true });
    h.tabs.set(2, { url: 'https://b.example/', active: false });
    // A tab loading in the background is not checked until it is activated.
    h.badges.schedule(2, 'navigated');
    h.badges.schedule(1, 'navigated');
    await settle();
    expect(h.checks).toEqual(['https://a.example/']);
    // Back and forth quickly: only the tab left active is checked.
    for (let i = 0; i < 10; i++) {
      const active = (i % 2) + 1;
      h.tabs.set(1, { url: 'https://a.example/', active: active === 1 });
      h.tabs.set(2, { url: 'https://b.example/', active: active === 2 });
      h.badges.schedule(active, 'activated');
    }
    await settle();
    expect(h.checks).toEqual(['https://a.example/', 'https://b.example/']);
    expect(h.text(1)).toBe('✓');
    expect(h.text(2)).toBe('');
    // Switching again within FRESH_MS shows what was checked; later, or once a capture
    // changed, it is asked again.
    h.tabs.set(1, { url: 'https://a.example/', active: true });
    h.tabs.set(2, { url: 'https://b.example/', active: false });
    h.badges.schedule(1, 'activated');
    await settle();
    expect(h.checks).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(FRESH_MS);
    h.badges.schedule(1, 'activated');
    await settle();
    expect(h.checks).toHaveLength(3);
    h.badges.schedule(1, 'changed');
    await settle();
    expect(h.checks).toHaveLength(4);
  });

  it('a page loaded again (or a navigation’s second loading event) within FRESH_MS shows what was checked, without asking', async () => {
    const h = harness({ saved: ['https://a.example/'] });
    h.tabs.set(1, { url: 'https://a.example/', active: true });
    h.badges.schedule(1, 'navigated');
    await settle();
    expect(h.checks).toHaveLength(1);
    // The browser clears a tab's badge when it loads a page: it is set again, from the check.
    h.shown.clear();
    h.badges.schedule(1, 'navigated');
    await settle();
    expect(h.checks).toHaveLength(1);
    expect(h.text(1)).toBe('✓');
    // Another address is asked about; coming back later too.
    h.tabs.set(1, { url: 'https://b.example/', active: true });
    h.badges.schedule(1, 'navigated');
    await settle();
    h.tabs.set(1, { url: 'https://a.example/', active: true });
    h.badges.schedule(1, 'navigated');
    await settle();
    expect(h.checks).toEqual(['https://a.example/', 'https://b.example/', 'https://a.example/']);
    await vi.advanceTimersByTimeAsync(FRESH_MS);
    h.badges.schedule(1, 'navigated');
    await settle();
    expect(h.checks).toHaveLength(4);
  });

  it('the popup’s question is one check, and the badge comes from it (not a second one)', async () => {
    const h = harness({ saved: ['https://a.example/'] });
    h.tabs.set(1, { url: 'https://a.example/', active: true });
    const checked = await h.badges.now(1, 'https://a.example/');
    expect(checked).toMatchObject({ url: 'https://a.example/', captured: { status: 'processed' }, error: null });
    expect(h.checks).toEqual(['https://a.example/']);
    expect(h.text(1)).toBe('✓');
    // A change that a popup's question asked after answers the scheduled run too.
    h.badges.schedule(1, 'changed');
    await h.badges.now(1, 'https://a.example/');
    await settle();
    expect(h.checks).toHaveLength(2);
  });

  it('a question asked after a change is never answered by a check started before it', async () => {
    const h = harness({ hold: true });
    h.tabs.set(1, { url: 'https://a.example/', active: true });
    h.badges.schedule(1, 'navigated');
    await settle();
    expect(h.checks).toHaveLength(1);
    // Saved meanwhile: the save's question waits for the old check, then asks again.
    h.saved.add('https://a.example/');
    const answer = h.badges.now(1, 'https://a.example/');
    h.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.checks).toHaveLength(2);
    expect(h.maxInFlight()).toBe(1);
    h.release();
    await expect(answer).resolves.toMatchObject({ captured: { status: 'processed' } });
    expect(h.text(1)).toBe('✓');
  });

  it('a check that fails says nothing on the badge, and is asked again at the next switch', async () => {
    const h = harness({ saved: ['https://a.example/'] });
    h.tabs.set(1, { url: 'https://a.example/', active: true });
    h.failWith(new Error('https://kg.example.com cannot be reached'));
    h.badges.schedule(1, 'navigated');
    await settle();
    expect(h.text(1)).toBe('');
    await expect(h.badges.now(1, 'https://a.example/')).resolves.toMatchObject({
      captured: null,
      error: 'https://kg.example.com cannot be reached',
    });
    h.failWith(null);
    h.badges.schedule(1, 'activated');
    await settle();
    expect(h.checks).toHaveLength(3);
    expect(h.text(1)).toBe('✓');
  });

  it('captures waiting to be sent are counted instead, without a check', async () => {
    const h = harness({ waiting: 2, saved: ['https://a.example/'] });
    h.tabs.set(1, { url: 'https://a.example/', active: true });
    h.badges.schedule(1, 'navigated');
    await settle();
    expect(h.checks).toEqual([]);
    expect(h.shown.get(1)).toMatchObject({ text: '2', title: 'Knowledge Graph: 2 waiting to be sent' });
    // A save kept for later: the count at once, nothing asked of a server out of reach.
    h.setWaiting(3);
    await h.badges.showWaiting(1);
    expect(h.text(1)).toBe('3');
    expect(h.checks).toEqual([]);
    h.setWaiting(0);
    h.badges.schedule(1, 'changed');
    await settle();
    expect(h.text(1)).toBe('✓');
  });

  it('a tab closed before its events settle is not asked about, and is forgotten', async () => {
    const h = harness();
    h.tabs.set(1, { url: 'https://a.example/', active: true });
    h.badges.schedule(1, 'navigated');
    h.badges.forget(1);
    h.badges.schedule(2, 'navigated');
    await settle();
    expect(h.checks).toEqual([]);
    expect(h.shown.size).toBe(0);
  });
});
