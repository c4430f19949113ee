import { describe, expect, it } from 'vitest';
import { allowedRedirect, redirectTo } from './oidc';
import { secureCookies } from './session-cookie';

describe('allowedRedirect (RFC 8252 loopback, or the dashboard under PUBLIC_URL)', () => {
  const pub = 'https://kg.example.com/';
  it('accepts loopback http URLs with a port, on 127.0.0.1 and [::1], any path', () => {
    for (const u of ['http://127.0.0.1:53682/callback', 'http://127.0.0.1:1/', 'http://[::1]:8000/cb?x=1'])
      expect(allowedRedirect(u, pub), u).toBe(true);
  });
  it('accepts exactly PUBLIC_URL/auth/callback', () => {
    expect(allowedRedirect('https://kg.example.com/auth/callback', pub)).toBe(true);
    expect(allowedRedirect('https://kg.example.com/auth/callback', 'https://kg.example.com')).toBe(true);
  });
  it('refuses everything else', () => {
    for (const u of [
      'https://kg.example.com/auth/elsewhere',
      'https://kg.example.com/auth/callback?next=https://evil.example',
      'https://kg.example.com/auth/callback#x',
      'http://kg.example.com/auth/callback',
      'https://kg.example.com.evil.example/auth/callback',
      'https://127.0.0.1:53682/callback',
      'http://localhost:53682/callback',
      'http://127.0.0.1/callback',
      'http://127.0.0.2:53682/callback',
      'http://user:pw@127.0.0.1:53682/callback',
      'http://127.0.0.1:53682/callback#frag',
      'javascript:alert(1)',
      'not a url',
    ])
      expect(allowedRedirect(u, pub), u).toBe(false);
  });
  it('adds code and state to the client redirect, keeping its own query', () => {
    expect(redirectTo('http://127.0.0.1:5/cb?x=1', { code: 'c', state: 'a b' })).toBe(
      'http://127.0.0.1:5/cb?x=1&code=c&state=a+b',
    );
  });
});

describe('secureCookies', () => {
  it('is off only for plain http on localhost or 127.0.0.1', () => {
    expect(secureCookies('http://localhost:8080')).toBe(false);
    expect(secureCookies('http://127.0.0.1:8080/')).toBe(false);
    expect(secureCookies('https://localhost:8443')).toBe(true);
    expect(secureCookies('https://kg.example.com')).toBe(true);
    expect(secureCookies('http://kg.example.com')).toBe(true);
  });
});
