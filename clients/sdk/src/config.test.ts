import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.ts';
import { configDirFrom, parseApiKey, parseBaseUrl, readClientEnv } from './config.ts';

const KEY = `key_${'0'.repeat(26)}.${'a'.repeat(43)}`;
const jwt = (claims: object) =>
  [{ alg: 'EdDSA', typ: 'JWT' }, claims].map((p) => Buffer.from(JSON.stringify(p)).toString('base64url')).join('.') +
  '.c2ln';

describe('SVC_TOKEN', () => {
  it('takes an API key', () => {
    expect(parseApiKey(KEY)).toBe(KEY);
    expect(parseApiKey(` ${KEY}\n`)).toBe(KEY);
    expect(parseApiKey('')).toBeUndefined();
    expect(parseApiKey(undefined)).toBeUndefined();
  });
  it('refuses a JWT with a message that says what to use instead', () => {
    expect(() => parseApiKey(jwt({ sub: 'u', tnt: 't' }))).toThrow(ConfigError);
    expect(() => parseApiKey(jwt({ sub: 'u' }))).toThrow(/access token \(a JWT\).*API key only.*kg keys create/);
  });
  it('refuses a scheme prefix and anything that is not a key', () => {
    expect(() => parseApiKey(`ApiKey ${KEY}`)).toThrow(/without "Bearer "/);
    expect(() => parseApiKey('hunter2')).toThrow(/not an API key/);
  });
});

describe('SVC_API_URL', () => {
  it('defaults to localhost and drops trailing slashes', () => {
    expect(parseBaseUrl(undefined)).toBe('http://localhost:8080/api/v1');
    expect(parseBaseUrl('https://kg.example.com/api/v1///')).toBe('https://kg.example.com/api/v1');
  });
  it('refuses other schemes, credentials and query strings', () => {
    expect(() => parseBaseUrl('ftp://x/api')).toThrow(ConfigError);
    expect(() => parseBaseUrl('http://u:p@x/api')).toThrow(/user name/);
    expect(() => parseBaseUrl('http://x/api?a=1')).toThrow(/query/);
    expect(() => parseBaseUrl('not a url')).toThrow(/not a URL/);
  });
});

describe('config directory', () => {
  it('follows KG_CONFIG_DIR, XDG, macOS and Windows conventions', () => {
    expect(configDirFrom({ KG_CONFIG_DIR: '/tmp/x' }, 'linux', '/home/a')).toBe(path.resolve('/tmp/x'));
    expect(configDirFrom({ XDG_CONFIG_HOME: '/xdg' }, 'linux', '/home/a')).toBe('/xdg/kg');
    expect(configDirFrom({ XDG_CONFIG_HOME: 'relative' }, 'linux', '/home/a')).toBe('/home/a/.config/kg');
    expect(configDirFrom({}, 'linux', '/home/a')).toBe('/home/a/.config/kg');
    expect(configDirFrom({}, 'darwin', '/Users/a')).toBe('/Users/a/Library/Application Support/kg');
    expect(configDirFrom({ APPDATA: 'C:/Users/a/AppData/Roaming' }, 'win32', 'C:/Users/a')).toBe(
      path.join('C:/Users/a/AppData/Roaming', 'kg'),
    );
  });
  it('readClientEnv reads all three', () => {
    const env = readClientEnv({ SVC_API_URL: 'http://h:1/api/v1/', SVC_TOKEN: KEY, KG_CONFIG_DIR: '/c' });
    expect(env).toEqual({ baseUrl: 'http://h:1/api/v1', apiKey: KEY, configDir: path.resolve('/c') });
  });
});
