import { z } from 'zod';

/**
 * Where the extension sends captures: the server's address and an API key (Settings › API
 * Keys in the dashboard, or `kg api-keys create`). Kept in `storage.local` only, never synced.
 */
export const Settings = z.object({
  /** The server's origin, e.g. https://kg.example.com (the API is under /api/v1). */
  server: z.string(),
  apiKey: z.string(),
});
export type Settings = z.infer<typeof Settings>;

/** The storage the extension uses: `browser.storage.local` in the browser, a map in tests. */
export interface KeyValueStorage {
  get(key: string): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
}

const KEY = 'settings';
const API_KEY = /^key_[0-9a-z]{26}\.[A-Za-z0-9_-]{20,200}$/;

export class SettingsError extends Error {}

/**
 * The server's origin from what a person types: `kg.example.com`, `https://kg.example.com/`,
 * `http://localhost:8080/api/v1`. Plain http only for loopback addresses (an API key must not
 * cross a network in clear).
 */
export function serverOrigin(input: string): string {
  const text = input.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    throw new SettingsError('That is not a web address');
  }
  // (Browsers' URL parsers differ on odd hosts: Chromium keeps `not a host` as `not%20a%20host`.)
  if (!/^(?:[a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/i.test(url.hostname))
    throw new SettingsError('That is not a web address');
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new SettingsError('The server must be https:// (http:// only for localhost)');
  if (url.username || url.password) throw new SettingsError('The address may not carry a user name or password');
  return url.origin;
}

export function checkApiKey(input: string): string {
  const key = input.trim();
  if (!API_KEY.test(key)) throw new SettingsError('An API key looks like key_… followed by a dot and its secret');
  return key;
}

export async function loadSettings(storage: KeyValueStorage): Promise<Settings | null> {
  const parsed = Settings.safeParse((await storage.get(KEY))[KEY]);
  return parsed.success ? parsed.data : null;
}

export async function saveSettings(storage: KeyValueStorage, settings: Settings): Promise<void> {
  await storage.set({ [KEY]: settings });
}
