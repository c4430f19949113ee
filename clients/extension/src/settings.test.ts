import { describe, expect, it } from 'vitest';
import { SettingsError, checkApiKey, serverOrigin } from './settings';

describe('extension settings', () => {
  it('takes the server origin from what a person types; plain http only for loopback', () => {
    expect(serverOrigin('kg.example.com')).toBe('https://kg.example.com');
    expect(serverOrigin(' https://kg.example.com/api/v1/ ')).toBe('https://kg.example.com');
    expect(serverOrigin('http://localhost:8080/graph')).toBe('http://localhost:8080');
    expect(serverOrigin('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
    for (const bad of [
      'http://kg.example.com',
      'ftp://kg.example.com',
      'javascript:alert(1)',
      'https://a:b@kg.example.com',
      'not a url',
    ])
      expect(() => serverOrigin(bad), bad).toThrow(SettingsError);
  });

  it('accepts only the shape of an API key', () => {
    const key = `key_01jd8x6q1bf5r3v2m9w7k4t0za.${'s'.repeat(43)}`;
    expect(checkApiKey(` ${key}\n`)).toBe(key);
    for (const bad of ['', 'key_x', `Bearer ${key}`, `${key} extra`, 'eyJhbGciOiJFZERTQSJ9.e30.sig'])
      expect(() => checkApiKey(bad), bad).toThrow(SettingsError);
  });
});
