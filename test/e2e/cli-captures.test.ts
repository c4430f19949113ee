import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { KG, cliUser, kg } from './support/cli';

// Every step is a kg process (a second or more on a loaded machine): more than the e2e default of 30 s.
vi.setConfig({ testTimeout: 180_000 });

let config: string;
let site: Server;
let siteUrl = '';
const run = (args: string[], input?: string) => kg(args, { config, input, timeoutMs: 120_000 });

beforeAll(async () => {
  ({ config } = await cliUser('captures'));
  site = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<!doctype html><html><head><title>Crema and extraction</title></head><body><article><h1>Crema and extraction</h1>' +
        '<p>Espresso crema forms when pressure emulsifies coffee oils. A good extraction takes about thirty seconds.</p>'.repeat(
          5,
        ) +
        '</article></body></html>',
    );
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/crema`;
});

afterAll(() => new Promise<void>((r) => site.close(() => r())));

describe('kg capture', () => {
  it('a note from stdin with --wait follows processing to the end and prints the activity', async () => {
    const res = await run(
      ['capture', '--wait'],
      'Interleaving beats blocked practice\nMixing topics in one session helps recall.',
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).toMatch(/^cap_/);
    for (const line of [
      'created',
      'queued',
      'processing_started',
      'stage_completed · extract',
      'processed · nodes node_',
    ])
      expect(res.stderr).toContain(line);
    expect(res.stderr).toMatch(/Processed → node_/);
    const shown = (await run(['captures', 'show', res.stdout.trim(), '--json'])).json();
    expect(shown).toMatchObject({
      title: 'Interleaving beats blocked practice',
      source: 'cli',
      content_type: 'note',
      status: 'processed',
    });
  });

  it('note text from arguments, without waiting', async () => {
    const res = await run(['capture', 'Deliberate', 'practice', 'needs', 'feedback', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json()).toMatchObject({ title: 'Deliberate practice needs feedback', status: 'pending', source: 'cli' });
  });

  it('a URL with --why, --wait --json gives the processed capture', async () => {
    const res = await run(['capture', '--url', siteUrl, '--why', 'for the coffee essay', '--wait', '--json']);
    expect(res.code, res.stderr).toBe(0);
    const capture = res.json();
    expect(capture).toMatchObject({
      url: siteUrl,
      why: 'for the coffee essay',
      content_type: 'article',
      status: 'processed',
    });
    expect(capture.node_ids).toHaveLength(1);
  });

  it('uploads a file and waits for it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kg-cli-upload-'));
    const file = path.join(dir, 'reading-notes.md');
    writeFileSync(file, '# Reading notes\n\nThe testing effect: retrieval strengthens memory more than re-reading.\n');
    const res = await run(['capture', '--file', file, '--why', 'exam prep', '--wait', '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json()).toMatchObject({
      content_type: 'note',
      status: 'processed',
      why: 'exam prep',
      metadata: { filename: 'reading-notes.md' },
    });
  });

  it('on a terminal, the upload shows a progress bar and the output has colours', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kg-cli-tty-'));
    const file = path.join(dir, 'big.txt');
    writeFileSync(file, 'The spacing effect. '.repeat(50_000)); // ~1 MB
    // `script` gives kg a pseudo-terminal, as a person's shell does.
    const { NO_COLOR: _noColor, ...inherited } = process.env;
    const env = { ...inherited, KG_CONFIG_DIR: config, SVC_API_URL: `${inject('baseUrl')}/api/v1`, TERM: 'xterm' };
    const res = spawnSync('script', ['-qec', `${KG} capture --file ${file} && ${KG} captures list`, '/dev/null'], {
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(res.status, res.stdout).toBe(0);
    expect(res.stdout).toMatch(/Uploading big\.txt .*100% · 1000000\/1000000 bytes/);
    expect(res.stdout).toContain('\u001b[1mID'); // bold table header on a terminal
    const piped = spawnSync(KG, ['captures', 'list'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(piped.stdout).not.toContain('\u001b['); // no colours in a pipe
  });

  it('a usage mistake: two things at once', async () => {
    const res = await run(['capture', 'text', '--url', siteUrl]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('capture one thing at a time');
  });
});

describe('kg captures', () => {
  it('list, show, activity, provenance, retry, reingest, archive', async () => {
    const list = await run(['captures', 'list', '--status', 'processed', '--json']);
    expect(list.code).toBe(0);
    const id = list.json().data[0].id as string;
    expect(list.json().data.every((c: any) => c.status === 'processed')).toBe(true);
    expect((await run(['captures', 'list'])).stdout).toMatch(/^ID\s+TITLE\s+TYPE\s+STATUS\s+CREATED/);

    expect((await run(['captures', 'show', id])).stdout).toMatch(new RegExp(`id\\s+${id}`));
    const activity = await run(['captures', 'activity', id, '--json']);
    expect(activity.json().data.map((a: any) => a.kind)).toContain('processed');
    expect((await run(['captures', 'activity', id])).stdout).toMatch(/\d\d:\d\d:\d\d processed/);
    const prov = await run(['captures', 'provenance', id]);
    expect(prov.stdout).toMatch(/^run_\S+\s+processed\s+created/m);
    expect(prov.stdout).toMatch(/^ {2}STAGE\s+MODEL\s+STARTED\s+FINISHED\s+INPUT/m);
    expect((await run(['captures', 'provenance', id, '--json'])).json().runs[0].stages.length).toBeGreaterThan(0);

    const retry = await run(['captures', 'retry', id]);
    expect(retry.code).toBe(1); // only a failed capture can be retried: 409
    expect(retry.stderr).toMatch(/Conflict.*\(HTTP 409\)/);
    const reingest = await run(['captures', 'reingest', id, '--json']);
    expect(reingest.code, reingest.stderr).toBe(0);
    expect(reingest.json().status).toMatch(/pending|processing|processed/);
    const archived = await run(['captures', 'archive', id, '--json']);
    expect(archived.json().status).toBe('archived');
    expect((await run(['captures', 'unarchive', id, '--json'])).json().status).not.toBe('archived');
    expect((await run(['captures', 'show', 'cap_00000000000000000000000000'])).code).toBe(4);
  });
});
