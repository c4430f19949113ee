import { beforeAll, describe, expect, it } from 'vitest';
import { Capture, CaptureActivityList, CaptureList, CaptureProvenance, CapturedUrl } from '@kg/contracts';
import { api, conforms, expectProblem, expectUnauthorized, newTenant, type Session } from './support/client';

let s: Session;
let other: Session;
beforeAll(async () => {
  [s, other] = await Promise.all([newTenant('captures'), newTenant('captures-other')]);
});

const UNKNOWN = 'cap_01jd8x6q1bf5r3v2m9w7k4t0za';
const note = { title: 'A note', content_type: 'note', source: 'cli', raw_content: 'Knowledge enters the graph.' };

async function create(auth: string, body: Record<string, unknown> = note): Promise<Capture> {
  const res = await api<Capture>('POST', '/captures', { auth, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return conforms(Capture, res.body);
}

describe('POST /captures', () => {
  it('answers 201 with the documented record, status pending, and queues it', async () => {
    const res = await api<Capture>('POST', '/captures', {
      auth: s.bearer,
      body: { ...note, url: 'https://example.com/a', why: 'to remember', selected_text: 'graph' },
    });
    expect(res.status).toBe(201);
    const c = conforms(Capture, res.body);
    expect(Object.keys(res.body).sort()).toEqual(Object.keys(Capture.shape).sort());
    expect(c).toMatchObject({
      title: 'A note',
      url: 'https://example.com/a',
      content_type: 'note',
      why: 'to remember',
      selected_text: 'graph',
      source: 'cli',
      status: 'pending',
      node_ids: [],
      error: null,
    });
    expect(c.id).toMatch(/^cap_[0-9a-z]{26}$/);
    expect(res.body).not.toHaveProperty('raw_content');
    const activity = conforms(
      CaptureActivityList,
      (await api('GET', `/captures/${c.id}/activity`, { auth: s.bearer })).body,
    );
    expect(activity.data.slice(0, 2).map((a) => a.kind)).toEqual(['created', 'queued']);
    expect(activity.data[1]!.detail).toMatchObject({ reason: 'created' });
  });

  it('validates: unknown fields, a bad content_type, NUL, a missing title answer 400 naming the field', async () => {
    for (const [body, path] of [
      [{ ...note, extra: 1 }, 'extra'],
      [{ ...note, content_type: 'book' }, 'content_type'],
      [{ ...note, title: 'a\u0000b' }, 'title'],
      [{ ...note, url: 'ftp://example.com/file' }, 'url'],
      [{ ...note, url: 'https:// spaced.example' }, 'url'],
      [{ content_type: 'note', source: 'cli' }, 'title'],
    ] as const) {
      const p = expectProblem(await api('POST', '/captures', { auth: s.bearer, body }), 400);
      expect(p.errors?.map((e) => e.path).join(' ')).toContain(path);
    }
    expectUnauthorized(await api('POST', '/captures', { body: note }));
  });
});

describe('GET /captures and /captures/:id', () => {
  it('lists newest first in the page envelope, filters by status, rejects per_page 101', async () => {
    const t = await newTenant('captures-list');
    const a = await create(t.bearer, { ...note, title: 'first' });
    const b = await create(t.bearer, { ...note, title: 'second' });
    const page = conforms(CaptureList, (await api('GET', '/captures?per_page=1', { auth: t.bearer })).body);
    expect(page).toMatchObject({ total: 2, page: 1, per_page: 1 });
    expect(page.data.map((c) => c.id)).toEqual([b.id]);
    const second = conforms(CaptureList, (await api('GET', '/captures?per_page=1&page=2', { auth: t.bearer })).body);
    expect(second.data.map((c) => c.id)).toEqual([a.id]);
    const dismissed = await api('POST', `/captures/${a.id}/dismiss`, { auth: t.bearer });
    expect(dismissed.body.status).toBe('dismissed');
    const filtered = conforms(CaptureList, (await api('GET', '/captures?status=dismissed', { auth: t.bearer })).body);
    expect(filtered.data.map((c) => c.id)).toEqual([a.id]);
    expectProblem(await api('GET', '/captures?per_page=101', { auth: t.bearer }), 400);
    expectProblem(await api('GET', '/captures?status=lost', { auth: t.bearer }), 400);
    expect((await api('GET', '/captures', { auth: other.bearer })).body.data.map((c: Capture) => c.id)).not.toContain(
      a.id,
    );
  });

  it("get answers the record; unknown, malformed and another tenant's ids answer 404", async () => {
    const c = await create(s.bearer);
    const got = await api('GET', `/captures/${c.id}`, { auth: s.bearer });
    expect(got.status).toBe(200);
    expect(conforms(Capture, got.body).id).toBe(c.id);
    for (const [auth, id] of [
      [s.bearer, UNKNOWN],
      [s.bearer, 'not-an-id'],
      [other.bearer, c.id],
    ] as const) {
      expectProblem(await api('GET', `/captures/${id}`, { auth }), 404);
      expectProblem(await api('GET', `/captures/${id}/activity`, { auth }), 404);
      expectProblem(await api('GET', `/captures/${id}/provenance`, { auth }), 404);
      expectProblem(await api('GET', `/captures/${id}/content`, { auth }), 404);
      expectProblem(await api('POST', `/captures/${id}/archive`, { auth }), 404);
      expectProblem(await api('DELETE', `/captures/${id}`, { auth }), 404);
    }
    expect((await api('GET', `/captures/${c.id}`, { auth: s.bearer })).status).toBe(200);
  });
});

describe('GET /captures/check', () => {
  it('answers 200 with the latest capture of the URL, 404 when never captured, per tenant', async () => {
    const url = `https://example.com/check/${Date.now()}`;
    const c = await create(s.bearer, { ...note, url, content_type: 'article' });
    const res = await api('GET', `/captures/check?url=${encodeURIComponent(url)}`, { auth: s.bearer });
    expect(res.status).toBe(200);
    expect(conforms(CapturedUrl, res.body)).toMatchObject({ url, capture_id: c.id });
    expectProblem(await api('GET', `/captures/check?url=${encodeURIComponent(url + '/x')}`, { auth: s.bearer }), 404);
    expectProblem(await api('GET', `/captures/check?url=${encodeURIComponent(url)}`, { auth: other.bearer }), 404);
    expectProblem(await api('GET', '/captures/check', { auth: s.bearer }), 400);
  });
});

describe('content, lifecycle and 409 rules', () => {
  it('content without format answers the raw content as text/plain; format=markdown is 404 until processed or 400 when unknown', async () => {
    const c = await create(s.bearer, { ...note, raw_content: 'Déjà vu: raw text' });
    const raw = await api('GET', `/captures/${c.id}/content`, { auth: s.bearer });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(raw.body).toBe('Déjà vu: raw text');
    expectProblem(await api('GET', `/captures/${c.id}/content?format=html`, { auth: s.bearer }), 400);
    const url = await create(s.bearer, {
      title: 'u',
      url: 'https://example.com/only',
      content_type: 'article',
      source: 'api',
    });
    const md = await api('GET', `/captures/${url.id}/content`, { auth: s.bearer });
    expectProblem(md, 404);
  });

  it('retry answers 409 unless failed; archive, dismiss and unarchive keep the data and restore the status', async () => {
    const c = await create(s.bearer);
    const retry = expectProblem(await api('POST', `/captures/${c.id}/retry`, { auth: s.bearer }), 409);
    expect(retry.detail).toMatch(/failed/);
    const archived = await api('POST', `/captures/${c.id}/archive`, { auth: s.bearer });
    expect(conforms(Capture, archived.body).status).toBe('archived');
    expect((await api('POST', `/captures/${c.id}/archive`, { auth: s.bearer })).body.status).toBe('archived');
    expectProblem(await api('POST', `/captures/${c.id}/retry`, { auth: s.bearer }), 409);
    const back = await api('POST', `/captures/${c.id}/unarchive`, { auth: s.bearer });
    expect(['pending', 'processing', 'processed']).toContain(back.body.status);
    const kinds = (await api('GET', `/captures/${c.id}/activity`, { auth: s.bearer })).body.data.map(
      (a: { kind: string }) => a.kind,
    );
    expect(kinds.slice(0, 2)).toEqual(['created', 'queued']);
    expect(kinds).toContain('archived');
    expect(kinds.indexOf('unarchived')).toBeGreaterThan(kinds.indexOf('archived'));
    const dismissed = await api('POST', `/captures/${c.id}/dismiss`, { auth: s.bearer });
    expect(dismissed.body.status).toBe('dismissed');
    const reingested = await api('POST', `/captures/${c.id}/reingest`, { auth: s.bearer });
    expect(reingested.status).toBe(200);
    expect(['pending', 'processing']).toContain(reingested.body.status);
  });

  it('provenance lists runs with their stages', async () => {
    const c = await create(s.bearer);
    const p = conforms(CaptureProvenance, (await api('GET', `/captures/${c.id}/provenance`, { auth: s.bearer })).body);
    expect(p.capture_id).toBe(c.id);
    expect(p.runs.length).toBeGreaterThanOrEqual(1);
    expect(p.runs[0]).toMatchObject({ reason: 'created' });
  });

  it('delete answers 204, then 404; the capture leaves the list', async () => {
    const c = await create(s.bearer);
    expect((await api('DELETE', `/captures/${c.id}`, { auth: s.bearer })).status).toBe(204);
    expectProblem(await api('GET', `/captures/${c.id}`, { auth: s.bearer }), 404);
    expectProblem(await api('DELETE', `/captures/${c.id}`, { auth: s.bearer }), 404);
  });
});

describe('GET /graph-health counts captures', () => {
  it('total, pending, processing and failed come from the captures service, per tenant', async () => {
    const t = await newTenant('captures-health');
    const health = async (auth: string) => (await api('GET', '/graph-health', { auth })).body;
    expect(await health(t.bearer)).toMatchObject({ total_captures: 0, pending_captures: 0, failed_captures: 0 });
    await create(t.bearer);
    const shelved = await create(t.bearer);
    await api('POST', `/captures/${shelved.id}/archive`, { auth: t.bearer });
    const h = await health(t.bearer);
    expect(h.total_captures).toBe(2);
    expect(h.pending_captures + h.processing_captures + h.failed_captures).toBeLessThanOrEqual(1);
    expect((await health(other.bearer)).total_captures).toBe(0);
  });
});
