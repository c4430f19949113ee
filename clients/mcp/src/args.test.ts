import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCommand } from './args.ts';
import { VERSION } from './version.ts';

describe('parseCommand', () => {
  it('serves stdio by default and HTTP with --http <port>', () => {
    expect(parseCommand([])).toEqual({ kind: 'stdio' });
    expect(parseCommand(['--http', '3333'])).toEqual({ kind: 'http', port: 3333, host: '127.0.0.1' });
    expect(parseCommand(['--http', '0', '--host', '0.0.0.0'])).toEqual({ kind: 'http', port: 0, host: '0.0.0.0' });
    expect(parseCommand(['-h'])).toEqual({ kind: 'help' });
    expect(parseCommand(['--version'])).toEqual({ kind: 'version' });
  });
  it('refuses bad ports, stray options and --host without --http', () => {
    for (const argv of [
      ['--http', 'abc'],
      ['--http', '70000'],
      ['--http', '-1'],
      ['--port', '1'],
      ['x'],
      ['--host', 'h'],
    ])
      expect(parseCommand(argv).kind, argv.join(' ')).toBe('usage');
  });
});

describe('VERSION', () => {
  it("is package.json's version", () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
