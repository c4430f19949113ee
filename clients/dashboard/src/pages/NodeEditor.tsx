import { useEffect, useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { Confirm, ErrorNote, Markdown, formatTime } from '../components/ui';
import { useAction, useLoad } from '../hooks';
import { useParaItems } from '../hooks-para';
import { Link, navigate } from '../router';
import { LinksEditor } from './LinksEditor';

type Status = 'raw' | 'validated' | 'dismissed';

const parseTags = (text: string) =>
  text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/** Create or edit a node: markdown with preview, tags, PARA items, status; its links; delete. */
export function NodeEditor({ id }: { id: string | null }) {
  const existing = useLoad(
    async () => (id ? unwrap(await api.GET('/nodes/{id}', { params: { path: { id } } })) : null),
    [id],
  );
  const para = useParaItems();
  const [title, setTitle] = useState('');
  const [summary, setSummary] = useState('');
  const [content, setContent] = useState('');
  const [tags, setTags] = useState('');
  const [status, setStatus] = useState<Status>('raw');
  const [paraIds, setParaIds] = useState<string[]>([]);
  const [preview, setPreview] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  const save = useAction();

  useEffect(() => {
    const node = existing.data;
    if (!node) return;
    setTitle(node.title);
    setSummary(node.summary);
    setContent(node.body_markdown);
    setTags(node.tags.join(', '));
    setStatus(node.status);
    setParaIds(node.para_item_ids);
  }, [existing.data]);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run(async () => {
      const body = { title, summary, content, tags: parseTags(tags), para_item_ids: paraIds };
      if (!id) {
        const node = unwrap(await api.POST('/nodes', { body }));
        navigate(`/nodes/${node.id}`, { replace: true });
        return;
      }
      unwrap(await api.PATCH('/nodes/{id}', { params: { path: { id } }, body: { ...body, status } }));
      setSaved(`Saved at ${new Date().toLocaleTimeString()}`);
      existing.reload();
    });
  };
  const remove = () =>
    save.run(async () => {
      setConfirmDelete(false);
      unwrap(await api.DELETE('/nodes/{id}', { params: { path: { id: id! } } }));
      navigate('/nodes', { replace: true });
    });

  if (id && existing.error) return <ErrorNote error={existing.error} />;
  return (
    <main id="main">
      <p>
        <Link href="/nodes">← All nodes</Link>
        {id && (
          <>
            {' · '}
            <Link href={`/graph?seed=${encodeURIComponent(id)}`}>Show in graph</Link>
          </>
        )}
      </p>
      <h1>{id ? `Edit “${existing.data?.title ?? '…'}”` : 'New node'}</h1>
      <div className="split">
        <form onSubmit={submit} aria-label="Node">
          <label htmlFor="title">Title</label>
          <input id="title" required maxLength={500} value={title} onChange={(e) => setTitle(e.target.value)} />
          <label htmlFor="summary">Summary</label>
          <input id="summary" value={summary} onChange={(e) => setSummary(e.target.value)} />
          <div className="row" style={{ marginTop: '0.5rem' }}>
            <span id="content-label" className="grow" style={{ fontWeight: 600 }}>
              Content (markdown)
            </span>
            <div className="tabs" role="group" aria-label="Content view">
              <button type="button" aria-pressed={!preview} onClick={() => setPreview(false)}>
                Write
              </button>
              <button type="button" aria-pressed={preview} onClick={() => setPreview(true)}>
                Preview
              </button>
            </div>
          </div>
          {preview ? (
            <div className="card" aria-labelledby="content-label" data-testid="preview">
              <Markdown source={content} />
            </div>
          ) : (
            <textarea aria-labelledby="content-label" value={content} onChange={(e) => setContent(e.target.value)} />
          )}
          <label htmlFor="tags">Tags (comma-separated)</label>
          <input id="tags" value={tags} onChange={(e) => setTags(e.target.value)} />
          {id && (
            <>
              <label htmlFor="status">Status</label>
              <select id="status" value={status} onChange={(e) => setStatus(e.target.value as Status)}>
                <option value="raw">raw</option>
                <option value="validated">validated</option>
                <option value="dismissed">dismissed</option>
              </select>
            </>
          )}
          <fieldset className="card" style={{ marginTop: '0.75rem' }}>
            <legend>PARA items</legend>
            {para.data?.length === 0 && <p className="muted">No PARA items yet.</p>}
            {para.data
              ?.filter((item) => item.status === 'active' || paraIds.includes(item.id))
              .map((item) => (
                <label key={item.id} className="inline" style={{ marginRight: '1rem' }}>
                  <input
                    type="checkbox"
                    checked={paraIds.includes(item.id)}
                    onChange={(e) =>
                      setParaIds((ids) => (e.target.checked ? [...ids, item.id] : ids.filter((x) => x !== item.id)))
                    }
                  />
                  {item.category}: {item.label}
                </label>
              ))}
          </fieldset>
          <div className="row" style={{ marginTop: '0.75rem' }}>
            <button type="submit" className="primary" disabled={save.busy}>
              {id ? 'Save node' : 'Create node'}
            </button>
            {id && (
              <button type="button" className="danger" onClick={() => setConfirmDelete(true)}>
                Delete node
              </button>
            )}
            <span role="status" className="muted">
              {saved}
            </span>
          </div>
          <ErrorNote error={save.error} />
          {existing.data && (
            <p className="muted">
              Created {formatTime(existing.data.created_at)} · updated {formatTime(existing.data.updated_at)}
            </p>
          )}
        </form>
        {id && <LinksEditor id={id} />}
      </div>
      <Confirm
        open={confirmDelete}
        title="Delete this node?"
        confirmLabel="Delete node"
        onCancel={() => setConfirmDelete(false)}
        onConfirm={() => void remove()}
      >
        <p>“{title}” and all its links are deleted. This cannot be undone.</p>
      </Confirm>
    </main>
  );
}
