import { useState } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { ErrorNote, Markdown } from '../components/ui';
import { useAction, useLoad } from '../hooks';
import { Link } from '../router';

type NeighborsView = Schemas['NeighborsView'];

/** The selected node: its markdown, its links (paged with next_cursor) and related nodes. */
export function NodePanel({
  id,
  frontier,
  onExpand,
  onSelect,
  onNeighbors,
}: {
  id: string;
  frontier: boolean;
  onExpand: () => void;
  onSelect: (id: string) => void;
  onNeighbors: (view: NeighborsView) => void;
}) {
  const node = useLoad(async () => unwrap(await api.GET('/nodes/{id}', { params: { path: { id } } })), [id]);
  const related = useLoad(
    async () => unwrap(await api.GET('/nodes/{id}/related', { params: { path: { id }, query: { limit: 10 } } })),
    [id],
  );
  const [pages, setPages] = useState<NeighborsView[]>([]);
  const more = useAction();
  const cursor = pages.length ? pages[pages.length - 1]!.next_cursor : undefined;
  const loadNeighbors = () =>
    more.run(async () => {
      const view = unwrap(
        await api.GET('/graph/neighbors/{id}', {
          params: { path: { id }, query: { limit: 20, ...(cursor ? { cursor } : {}) } },
        }),
      );
      setPages((p) => [...p, view]);
      onNeighbors(view);
    });
  const neighbors = pages.flatMap((p) => p.nodes);
  const edgeOf = (other: string) =>
    pages
      .flatMap((p) => p.edges)
      .find((e) => (e.source === id && e.target === other) || (e.target === id && e.source === other));

  return (
    <article>
      <ErrorNote error={node.error} />
      {node.data && (
        <>
          <h2>{node.data.title}</h2>
          <p className="row">
            <span className={`badge ${node.data.status}`}>{node.data.status}</span>
            {node.data.tags.map((t) => (
              <span key={t} className="badge">
                #{t}
              </span>
            ))}
          </p>
          <p className="row">
            <Link href={`/nodes/${id}`}>Edit node</Link>
            {frontier && (
              <button type="button" onClick={onExpand}>
                Expand
              </button>
            )}
          </p>
          {node.data.summary && <p className="muted">{node.data.summary}</p>}
          <Markdown source={node.data.body_markdown} />
        </>
      )}
      <h3>Links</h3>
      {pages.length === 0 ? (
        <button type="button" onClick={() => void loadNeighbors()} disabled={more.busy}>
          Show links
        </button>
      ) : (
        <>
          <ul className="plain" data-testid="neighbors">
            {neighbors.map((n) => {
              const edge = edgeOf(n.id);
              return (
                <li key={n.id}>
                  <button type="button" className="link" onClick={() => onSelect(n.id)}>
                    {n.title}
                  </button>{' '}
                  {edge && (
                    <span className="muted">
                      {edge.link_type} · {edge.weight.toFixed(2)}
                    </span>
                  )}
                </li>
              );
            })}
          </ul>
          {neighbors.length === 0 && <p className="muted">No links.</p>}
          {cursor && (
            <button type="button" onClick={() => void loadNeighbors()} disabled={more.busy}>
              More links
            </button>
          )}
        </>
      )}
      <ErrorNote error={more.error} />
      <h3>Related</h3>
      <ErrorNote error={related.error} />
      <ul className="plain">
        {related.data?.nodes.map((r) => (
          <li key={r.id}>
            <button type="button" className="link" onClick={() => onSelect(r.id)}>
              {r.title}
            </button>{' '}
            <span className="muted">{r.relationship_type}</span>
          </li>
        ))}
      </ul>
      {related.data?.nodes.length === 0 && <p className="muted">Nothing related yet.</p>}
    </article>
  );
}
