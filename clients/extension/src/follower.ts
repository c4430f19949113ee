import { ApiProblem, type Api, type Capture } from './api';
import type { EventStream, StreamHandlers } from './event-stream';
import type { CaptureEvent } from './events';
import { STORAGE_KEY, applyEvent, applyRead, followedOf, inFlight, track, wanted, type Followed } from './followed';
import type { KeyValueStorage, Settings } from './settings';

export interface FollowerDeps {
  storage: KeyValueStorage;
  settings: () => Promise<Settings | null>;
  api: (settings: Settings) => Pick<Api, 'get' | 'retry'>;
  open: (settings: Settings, handlers: StreamHandlers) => Pick<EventStream, 'close'>;
  /** Entries whose state changed (the background moves the badges of their pages). */
  onChange?: (changed: Followed[]) => Promise<void> | void;
  /** Called as the stream receives bytes: the background's way to stay awake while it follows. */
  keepAwake?: () => void;
  now?: () => number;
}

/**
 * Follows the captures this browser made until the pipeline is done with them, in the
 * background (README.md, "Live status"): one event stream for the whole
 * browser, open while a capture saved in the last 15 minutes is in flight or a popup shows
 * the list, closed otherwise. Every (re)connection re-reads the captures in flight with
 * `GET /captures/:id` (the server replays nothing), and so does a popup when it opens.
 * Writes go through one chain: an event and a read of the same capture never interleave.
 */
export class Follower {
  private chain: Promise<unknown> = Promise.resolve();
  private stream: Pick<EventStream, 'close'> | null = null;
  private streamKey = '';
  /** A key the server refused or revoked: no stream with it until the settings change. */
  private refusedKey = '';
  private watchers = 0;
  private readonly now: () => number;

  constructor(private readonly deps: FollowerDeps) {
    this.now = deps.now ?? Date.now;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }

  async list(): Promise<Followed[]> {
    return followedOf((await this.deps.storage.get(STORAGE_KEY))[STORAGE_KEY]);
  }

  /** Changes the list (in the chain); returns the entries that changed. */
  private update(change: (list: Followed[]) => Followed[] | null): Promise<Followed[]> {
    return this.serial(async () => {
      const before = await this.list();
      const after = change(before);
      if (!after) return [];
      await this.deps.storage.set({ [STORAGE_KEY]: after });
      const changed = after.filter((f) => !before.includes(f));
      if (changed.length) await this.deps.onChange?.(changed);
      return changed;
    });
  }

  /**
   * A capture just made: shown first and followed. Its events may have come before it was
   * followed (a stream open already, a fast pipeline): unless the stream opens now (and reads
   * it on connecting), it is read once more.
   */
  async track(capture: Capture, eventsBefore?: number): Promise<void> {
    await this.update((list) => track(list, capture, this.now(), eventsBefore));
    if (!(await this.ensure())) await this.read([capture.id]);
  }

  /** Re-reads the captures shown (`inFlightOnly`: those the pipeline has not finished); answers the list. */
  async refresh(inFlightOnly = false): Promise<Followed[]> {
    const list = await this.list();
    await this.read(list.filter((f) => !f.deleted && (!inFlightOnly || inFlight(f))).map((f) => f.id));
    await this.ensure();
    return this.list();
  }

  /** Reads captures with `GET /captures/:id` and applies what the server answers. */
  private async read(ids: string[]): Promise<void> {
    const settings = await this.deps.settings();
    if (!settings || !ids.length) return;
    const api = this.deps.api(settings);
    const list = await this.list();
    await Promise.all(
      ids.map(async (id) => {
        const before = list.find((f) => f.id === id)?.events ?? 0;
        let capture: Capture | null;
        try {
          capture = await api.get(id);
        } catch (err) {
          if (!(err instanceof ApiProblem && err.status === 404)) return; // offline: keep what is known
          capture = null;
        }
        await this.update((now) => applyRead(now, id, capture, before));
      }),
    );
  }

  /** Retries a failed capture (`POST /captures/:id/retry`) and follows it again. */
  async retry(id: string): Promise<void> {
    const settings = await this.deps.settings();
    if (!settings) throw new Error('Set the server and an API key in the options first');
    const held = (await this.list()).find((f) => f.id === id);
    if (!held) throw new Error('Not a capture this browser follows');
    await this.track(await this.deps.api(settings).retry(id), held.events);
  }

  /** A popup shows the list: the stream stays open until `unwatch` (its port closed). */
  watch(): () => void {
    this.watchers++;
    void this.ensure();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.watchers--;
      void this.ensure();
    };
  }

  /** Opens or closes the stream as the list, the settings and the popups want; answers whether it opened one. */
  ensure(): Promise<boolean> {
    return this.serial(async () => {
      const settings = await this.deps.settings();
      const key = settings ? `${settings.server} ${settings.apiKey}` : '';
      const want = !!settings && key !== this.refusedKey && wanted(await this.list(), this.now(), this.watchers > 0);
      if (this.stream && (!want || key !== this.streamKey)) {
        this.stream.close();
        this.stream = null;
      }
      if (!want || this.stream || !settings) return false;
      this.streamKey = key;
      const stream = this.deps.open(settings, {
        onOpen: () => void this.refresh(true),
        onEvent: (event) => void this.apply(event),
        onActivity: () => {
          this.deps.keepAwake?.();
          void this.ensure();
        },
        onEnd: () => {
          if (this.stream !== stream) return;
          this.stream = null;
          this.refusedKey = key;
        },
      });
      this.stream = stream;
      return true;
    });
  }

  private async apply(event: CaptureEvent): Promise<void> {
    const changed = await this.update((list) => applyEvent(list, event));
    if (changed.length) await this.ensure();
  }

  /** Whether the stream is open (for the tests and the popup). */
  get live(): boolean {
    return this.stream !== null;
  }
}
