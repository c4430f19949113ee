import { useEffect, useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ui';
import { useAction, useLoad } from '../hooks';
import { Link } from '../router';

interface Row {
  target_id: string;
  title: string;
  type: string;
  weight: number;
}

/** Every outgoing link of a node, read through the paged neighbours view. */
async function outgoingLinks(id: string): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | undefined;
  do {
    const view = unwrap(
      await api.GET('/graph/neighbors/{id}', {
        params: { path: { id }, query: { direction: 'out', limit: 200, ...(cursor ? { cursor } : {}) } },
      }),
    );
    const titles = new Map(view.nodes.map((n) => [n.id, n.title]));
    for (const e of view.edges)
      if (e.source === id)
        rows.push({
          target_id: e.target,
          title: titles.get(e.target) ?? e.target,
          type: e.link_type,
          weight: e.weight,
        });
    cursor = view.next_cursor ?? undefined;
  } while (cursor);
  return rows;
}

/** The node's links (type and weight per target), saved as a full replacement. */
export function LinksEditor({ id }: { id: string }) {
  const current = useLoad(() => outgoingLinks(id), [id]);
  const [rows, setRows] = useState<Row[]>([]);
  const [find, setFind] = useState('');
  const [found, setFound] = useState<{ id: string; title: string }[] | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const action = useAction();
  useEffect(() => {
    if (current.data) setRows(current.data);
  }, [current.data]);

  const search = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const page = unwrap(
        await api.GET('/nodes', { params: { query: { query: find, mode: 'keyword', per_page: 8 } } }),
      );
      setFound(page.data.filter((n) => n.id !== id).map((n) => ({ id: n.id, title: n.title })));
    });
  };
  const add = (target: { id: string; title: string }) => {
    if (!rows.some((r) => r.target_id === target.id))
      setRows([...rows, { target_id: target.id, title: target.title, type: 'related', weight: 1 }]);
    setFound(null);
    setFind('');
  };
  const update = (i: number, patch: Partial<Row>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const saveLinks = () =>
    action.run(async () => {
      const body = { links: rows.map((r) => ({ target_id: r.target_id, type: r.type, weight: r.weight })) };
      unwrap(await api.PATCH('/nodes/{id}/links', { params: { path: { id } }, body }));
      setSaved(`Links saved at ${new Date().toLocaleTimeString()}`);
    });

  return (
    <section className="card" aria-labelledby="links-title">
      <h2 id="links-title">Links</h2>
      <ErrorNote error={current.error ?? action.error} />
      {rows.length === 0 && !current.loading && <p className="muted">No links yet.</p>}
      <ul className="plain">
        {rows.map((row, i) => (
          <li key={row.target_id}>
            <Link href={`/nodes/${row.target_id}`}>{row.title}</Link>
            <div className="row">
              <label className="inline">
                Type
                <input
                  value={row.type}
                  pattern="[a-z][a-z0-9_]{0,39}"
                  size={12}
                  onChange={(e) => update(i, { type: e.target.value })}
                />
              </label>
              <label className="inline">
                Weight
                <input
                  type="number"
                  min={0.05}
                  max={1}
                  step={0.05}
                  value={row.weight}
                  style={{ width: '5rem' }}
                  onChange={(e) => update(i, { weight: Number(e.target.value) })}
                />
              </label>
              <button
                type="button"
                onClick={() => setRows(rows.filter((_, j) => j !== i))}
                aria-label={`Remove link to ${row.title}`}
              >
                Remove
              </button>
            </div>
          </li>
        ))}
      </ul>
      <form onSubmit={search} className="row" style={{ marginTop: '0.5rem' }}>
        <label className="skip" htmlFor="link-find">
          Find a node to link
        </label>
        <input
          id="link-find"
          className="grow"
          style={{ width: 'auto' }}
          placeholder="Find a node to link"
          value={find}
          onChange={(e) => setFind(e.target.value)}
        />
        <button type="submit">Find</button>
      </form>
      {found && (
        <ul className="plain" aria-label="Nodes to link">
          {found.length === 0 && <li className="muted">Nothing found.</li>}
          {found.map((n) => (
            <li key={n.id}>
              <button type="button" className="link" onClick={() => add(n)}>
                Link to {n.title}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="row" style={{ marginTop: '0.5rem' }}>
        <button type="button" className="primary" onClick={() => void saveLinks()} disabled={action.busy}>
          Save links
        </button>
        <span role="status" className="muted">
          {saved}
        </span>
      </div>
    </section>
  );
}
