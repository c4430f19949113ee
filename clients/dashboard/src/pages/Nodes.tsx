import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { ErrorNote, formatTime } from '../components/ui';
import { Pager } from '../components/Pager';
import { useLoad } from '../hooks';
import { useParaItems } from '../hooks-para';
import { Link, navigate, useLocation } from '../router';
import { NodeEditor } from './NodeEditor';

type Mode = 'keyword' | 'semantic' | 'hybrid';
type Status = 'raw' | 'validated' | 'dismissed';
const PER_PAGE = 20;

/** /nodes: search and filters; /nodes/new and /nodes/:id: the editor. */
export default function NodesPage() {
  const url = useLocation();
  const id = url.pathname.split('/')[2];
  if (id) return <NodeEditor key={id} id={id === 'new' ? null : decodeURIComponent(id)} />;
  return (
    <NodeList
      initialStatus={(url.searchParams.get('status') as Status | null) ?? ''}
      initialCapture={url.searchParams.get('source_capture_id') ?? ''}
    />
  );
}

function NodeList({ initialStatus, initialCapture }: { initialStatus: Status | ''; initialCapture: string }) {
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState<Mode>('hybrid');
  const [status, setStatus] = useState<Status | ''>(initialStatus);
  const [paraItem, setParaItem] = useState('');
  const [orphan, setOrphan] = useState<'' | 'true' | 'false'>('');
  const [capture, setCapture] = useState(initialCapture);
  // The filter applies once the field holds a whole capture id (cap_ and 26 characters).
  const captureId = /^cap_[0-9a-z]{26}$/.test(capture.trim()) ? capture.trim() : '';
  const [page, setPage] = useState(1);
  const para = useParaItems();
  const nodes = useLoad(
    async () =>
      unwrap(
        await api.GET('/nodes', {
          params: {
            query: {
              page,
              per_page: PER_PAGE,
              ...(query ? { query, mode } : {}),
              ...(status ? { status } : {}),
              ...(paraItem ? { para_item_id: paraItem } : {}),
              ...(orphan ? { orphan } : {}),
              ...(captureId ? { source_capture_id: captureId } : {}),
            },
          },
        }),
      ),
    [query, mode, status, paraItem, orphan, captureId, page],
  );
  const search = (e: FormEvent) => {
    e.preventDefault();
    setPage(1);
    setQuery(draft.trim());
  };
  const filter =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      setPage(1);
      set(v);
    };

  return (
    <main id="main">
      <div className="row">
        <h1 className="grow">Nodes</h1>
        <button type="button" className="primary" onClick={() => navigate('/nodes/new')}>
          New node
        </button>
      </div>
      <form className="card" role="search" onSubmit={search}>
        <div className="row">
          <label className="skip" htmlFor="node-search">
            Search nodes
          </label>
          <input
            id="node-search"
            type="search"
            className="grow"
            placeholder="Search titles and content"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            style={{ width: 'auto' }}
          />
          <label className="inline" htmlFor="mode">
            Mode
          </label>
          <select id="mode" value={mode} onChange={(e) => filter(setMode)(e.target.value as Mode)}>
            <option value="hybrid">hybrid</option>
            <option value="keyword">keyword</option>
            <option value="semantic">semantic</option>
          </select>
          <button type="submit">Search</button>
        </div>
        <div className="row" style={{ marginTop: '0.5rem' }}>
          <label className="inline" htmlFor="status-filter">
            Status
          </label>
          <select id="status-filter" value={status} onChange={(e) => filter(setStatus)(e.target.value as Status | '')}>
            <option value="">any</option>
            <option value="raw">raw</option>
            <option value="validated">validated</option>
            <option value="dismissed">dismissed</option>
          </select>
          <label className="inline" htmlFor="para-filter">
            PARA item
          </label>
          <select id="para-filter" value={paraItem} onChange={(e) => filter(setParaItem)(e.target.value)}>
            <option value="">any</option>
            {para.data?.map((item) => (
              <option key={item.id} value={item.id}>
                {item.category}: {item.label}
                {item.status !== 'active' ? ` (${item.status})` : ''}
              </option>
            ))}
          </select>
          <label className="inline" htmlFor="orphan-filter">
            Assignment
          </label>
          <select
            id="orphan-filter"
            value={orphan}
            onChange={(e) => filter(setOrphan)(e.target.value as '' | 'true' | 'false')}
          >
            <option value="">any</option>
            <option value="true">without PARA item</option>
            <option value="false">with a PARA item</option>
          </select>
          <label className="inline" htmlFor="capture-filter">
            From capture
          </label>
          <input
            id="capture-filter"
            placeholder="cap_…"
            value={capture}
            style={{ width: '12rem' }}
            onChange={(e) => filter(setCapture)(e.target.value)}
          />
        </div>
      </form>
      <ErrorNote error={nodes.error} />
      <table aria-busy={nodes.loading}>
        <caption className="skip">Nodes found</caption>
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Status</th>
            <th scope="col">Tags</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {nodes.data?.data.map((node) => (
            <tr key={node.id}>
              <td>
                <Link href={`/nodes/${node.id}`}>{node.title}</Link>
                {node.summary && <div className="muted">{node.summary.slice(0, 160)}</div>}
              </td>
              <td>
                <span className={`badge ${node.status}`}>{node.status}</span>
              </td>
              <td>{node.tags.join(', ')}</td>
              <td>{formatTime(node.updated_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {nodes.data && nodes.data.data.length === 0 && <p className="muted">No nodes match.</p>}
      {nodes.data && (
        <Pager page={page} perPage={PER_PAGE} total={nodes.data.total} onPage={setPage} label="Node pages" />
      )}
    </main>
  );
}
