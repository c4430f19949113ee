import { pageAddress } from './address';
import type { CapturedUrl } from './api';
import { badgeFor, type Badge } from './badge';

/** Events of one tab closer together than this make one check (a navigation fires several). */
export const SETTLE_MS = 300;
/** Switching back to a tab within this time shows what was checked, without asking again. */
export const FRESH_MS = 30_000;

/** A tab as the extension may see it: `url` only with `tabs`, a host permission or an activeTab grant. */
export interface TabView {
  url: string | undefined;
  /** The tab shown in its window (the only one whose badge can be seen). */
  active: boolean;
}

export interface TabBadgeDeps {
  /** The tab, or null once it is closed. */
  tab(tabId: number): Promise<TabView | null>;
  /** GET /captures/check: the latest capture of the address, null if none (or no server set up); throws when it cannot be asked. */
  check(url: string): Promise<CapturedUrl | null>;
  /** Captures waiting to be sent (shown instead of the page's state). */
  waiting(): Promise<number>;
  show(tabId: number, badge: Badge): Promise<void>;
  clock?: () => number;
}

/** The answer about one address; `error` when the server could not be asked (the badge then says nothing). */
export interface Checked {
  url: string;
  captured: CapturedUrl | null;
  error: string | null;
}

/**
 * Why a tab's badge is worked out again: it was `activated`, or it `navigated` (a check under
 * way is for the old page; the browser cleared the badge), and then what was checked of the
 * same address less than FRESH_MS ago still holds (a navigation fires `loading` more than
 * once, a reload asks nothing new); or its capture `changed` (an event, a save, the queue
 * sent): asked again.
 */
export type Reason = 'activated' | 'navigated' | 'changed';

/** A check and its sequence number (what was asked after what). */
type Answer = Checked & { seq: number };

interface Flight {
  url: string;
  seq: number;
  promise: Promise<Answer>;
}

interface TabState {
  timer?: ReturnType<typeof setTimeout>;
  /** Only a check started after this (sequence number) may answer; 0: any. */
  after: number;
  /** The page changed since the last run started: results of older checks are not shown. */
  page: number;
  running: boolean;
  again: boolean;
  flight?: Flight;
  /**
   * The last answer (from which check, sequence number, and when): what the badge shows, or,
   * when the page changed while it was asked, what the next run shows without asking again
   * if the tab is still on that address (a slow load's `complete` after its `loading`).
   */
  known?: { url: string; seq: number; at: number; captured: CapturedUrl | null };
}

/**
 * The toolbar badge of each tab, from `GET /captures/check` of the page's address
 * (src/address.ts), without a request per event: a tab's events are settled for SETTLE_MS
 * into one run; only the active tab of a window is checked (another one when it is
 * activated); at most one check per tab is in flight, a later one waits for it and the
 * answer of a page left meanwhile is dropped; an address the extension cannot see, or one
 * that is not a web page, is never sent and leaves the badge empty (or the waiting count).
 */
export class TabBadges {
  private readonly tabs = new Map<number, TabState>();
  private seq = 0;
  private readonly clock: () => number;

  constructor(
    private readonly deps: TabBadgeDeps,
    private readonly settleMs = SETTLE_MS,
  ) {
    this.clock = deps.clock ?? Date.now;
  }

  /** Works the tab's badge out once its events settle. */
  schedule(tabId: number, reason: Reason): void {
    const s = this.state(tabId);
    if (reason === 'changed') s.after = ++this.seq;
    if (reason === 'navigated') s.page++;
    if (s.timer !== undefined) clearTimeout(s.timer);
    s.timer = setTimeout(() => {
      s.timer = undefined;
      void this.run(tabId);
    }, this.settleMs);
  }

  /**
   * The popup's (or a save's) question, answered now: a check started for it (or after it
   * was asked), never an older one, and the badge set from it. Null when the address is
   * not one to check (the badge then shows nothing but the waiting count).
   */
  async now(tabId: number, url: string | undefined): Promise<Checked | null> {
    const s = this.state(tabId);
    const page = s.page;
    const address = pageAddress(url);
    if (!address) {
      await this.showNothing(tabId, s);
      return null;
    }
    const answer = await this.checkOnce(s, address, ++this.seq);
    this.remember(s, answer);
    if (s.page === page) await this.show(tabId, answer);
    return { url: answer.url, captured: answer.captured, error: answer.error };
  }

  /** The count of captures waiting to be sent (or nothing), without asking the server. */
  async showWaiting(tabId: number): Promise<void> {
    await this.showNothing(tabId, this.state(tabId));
  }

  /** The tab was closed. */
  forget(tabId: number): void {
    const s = this.tabs.get(tabId);
    if (s?.timer !== undefined) clearTimeout(s.timer);
    this.tabs.delete(tabId);
  }

  private state(tabId: number): TabState {
    let s = this.tabs.get(tabId);
    if (!s) this.tabs.set(tabId, (s = { after: 0, page: 0, running: false, again: false }));
    return s;
  }

  private async run(tabId: number): Promise<void> {
    const s = this.state(tabId);
    if (s.running) {
      s.again = true;
      return;
    }
    s.running = true;
    try {
      const page = s.page;
      const tab = await this.deps.tab(tabId);
      if (!tab) return this.forget(tabId);
      // An inactive tab's badge cannot be seen: it is worked out when the tab is activated
      // (`after` stays, so what changed meanwhile is asked then).
      if (!tab.active) return;
      const address = pageAddress(tab.url);
      if (!address) return await this.showNothing(tabId, s);
      // What waits to be sent is counted instead (the server is likely out of reach).
      if (await this.deps.waiting()) return await this.showNothing(tabId, s);
      const { known } = s;
      if (known?.url === address && (s.after ? known.seq > s.after : this.clock() - known.at < FRESH_MS))
        // Shown again as checked (a navigation cleared it).
        return await this.deps.show(tabId, badgeFor(0, known.captured));
      const checked = await this.checkOnce(s, address, s.after);
      this.remember(s, checked);
      if (s.page === page) await this.show(tabId, checked);
    } finally {
      s.running = false;
      if (s.again && this.tabs.get(tabId) === s) {
        s.again = false;
        void this.run(tabId);
      }
    }
  }

  /**
   * One check of `url` in flight per tab: one started after `after` is joined; any other
   * is waited for first.
   */
  private async checkOnce(s: TabState, url: string, after: number): Promise<Answer> {
    while (s.flight && !(s.flight.url === url && s.flight.seq > after)) await s.flight.promise;
    if (s.flight) return s.flight.promise;
    const seq = ++this.seq;
    const promise = this.deps.check(url).then(
      (captured): Answer => ({ url, captured, error: null, seq }),
      (err: unknown): Answer => ({
        url,
        captured: null,
        error: err instanceof Error ? err.message : String(err),
        seq,
      }),
    );
    const flight = { url, seq, promise };
    s.flight = flight;
    void promise.then(() => {
      if (s.flight === flight) s.flight = undefined;
    });
    return promise;
  }

  /**
   * Keeps an answer for the runs to come. A check that failed (offline, the key refused) is
   * not kept: it is asked again at the next event.
   */
  private remember(s: TabState, checked: Answer): void {
    if (checked.error) {
      s.known = undefined;
      return;
    }
    if (s.known && s.known.seq > checked.seq) return;
    s.known = { url: checked.url, seq: checked.seq, at: this.clock(), captured: checked.captured };
    if (s.after < checked.seq) s.after = 0;
  }

  /** The badge from an answer (one that failed says nothing rather than something wrong). */
  private async show(tabId: number, checked: Answer): Promise<void> {
    await this.deps.show(tabId, badgeFor(await this.deps.waiting(), checked.captured));
  }

  private async showNothing(tabId: number, s: TabState): Promise<void> {
    s.known = undefined;
    await this.deps.show(tabId, badgeFor(await this.deps.waiting(), null));
  }
}
