import type { CapturedUrl } from './api';
import type { Followed } from './followed';
import type { Refused, SaveOutcome } from './queue';

/** What the popup and the options page ask the background for (runtime.sendMessage). */
export type Message =
  | { type: 'status'; tabId: number }
  | { type: 'save-page'; tabId: number; why?: string }
  /** What the context menus do (they call the same code); also how the tests drive them. */
  | { type: 'save-selection'; tabId: number; text: string }
  | { type: 'save-link'; tabId: number; url: string; text?: string }
  | { type: 'flush' }
  /** The popup opened: re-read the captures it shows (GET /captures/:id). */
  | { type: 'refresh' }
  /** The popup's Retry of a failed capture (POST /captures/:id/retry). */
  | { type: 'retry'; id: string };

/** The port a popup holds open while it shows the captures followed (the stream stays open meanwhile). */
export const WATCH_PORT = 'watch-captures';

export interface Status {
  /** The options hold a server and a key. */
  ready: boolean;
  server: string | null;
  /** The page's latest capture, when it was captured (GET /captures/check). */
  captured: CapturedUrl | null;
  /** Why the check could not be made (offline), if it could not. */
  checkError: string | null;
  /** Captures waiting to be sent. */
  waiting: number;
  refused: Refused[];
  capturable: boolean;
  /**
   * The extension may not see the tab's address (no `tabs` permission, no host permission
   * for it, and the popup was not opened from the toolbar button on it): nothing was checked.
   */
  hidden: boolean;
}

export type Reply<M extends Message> = M extends { type: 'status' }
  ? Status
  : M extends { type: 'save-page' | 'save-selection' | 'save-link' }
    ? SaveOutcome
    : M extends { type: 'flush' }
      ? { sent: number; waiting: number }
      : M extends { type: 'refresh' }
        ? Followed[]
        : M extends { type: 'retry' }
          ? { error: string | null }
          : never;

/**
 * Whether a message comes from a page of this extension (its own origin: chrome-extension://<its
 * id>, moz-extension://<its uuid>), not from a web page, a content script or another extension.
 */
export function fromOwnPage(
  sender: { id?: string; url?: string } | undefined,
  self: { id: string; origin: string },
): boolean {
  return !!sender && sender.id === self.id && !!sender.url?.startsWith(`${self.origin}/`);
}
