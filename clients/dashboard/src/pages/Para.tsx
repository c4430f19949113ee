import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, api, unwrap, type Schemas } from '../api/client';
import { ErrorNote, formatTime } from '../components/ui';
import { useAction, useLoad } from '../hooks';
import { Link } from '../router';

type Item = Schemas['ParaItem'];
type Category = Item['category'];
type Job = Schemas['ParaJob'];

/** Follows a reclassification job (GET /para/jobs/{id}) until it is done or failed. */
function useJob(jobId: string | null) {
  const [job, setJob] = useState<Job | null>(null);
  useEffect(() => {
    if (!jobId) return;
    let stop = false;
    const poll = async () => {
      while (!stop) {
        const { data } = await api.GET('/para/jobs/{id}', { params: { path: { id: jobId } } });
        if (data) setJob(data);
        if (!data || data.status === 'done' || data.status === 'failed') return;
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    void poll();
    return () => {
      stop = true;
    };
  }, [jobId]);
  return job;
}

/** PARA: the tree, create, lifecycle actions, match and rescan jobs, and the nodes of an item. */
export default function ParaPage() {
  const tree = useLoad(async () => unwrap(await api.GET('/para/tree')), []);
  const [selected, setSelected] = useState<Item | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);
  const [waitUntil, setWaitUntil] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const job = useJob(jobId);
  const action = useAction();

  useEffect(() => {
    if (!waitUntil) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [waitUntil]);
  const waitSeconds = waitUntil ? Math.max(0, Math.ceil((waitUntil - now) / 1000)) : 0;

  const lifecycle = (item: Item, op: 'complete' | 'undo-complete' | 'archive' | 'unarchive' | 'match') =>
    action.run(async () => {
      const path = { params: { path: { id: item.id } } };
      if (op === 'match') {
        setJobId(unwrap(await api.POST('/para/{id}/match', path)).id);
        return;
      }
      const updated =
        op === 'complete'
          ? unwrap(await api.POST('/para/{id}/complete', path))
          : op === 'undo-complete'
            ? unwrap(await api.POST('/para/{id}/undo-complete', path))
            : op === 'archive'
              ? unwrap(await api.POST('/para/{id}/archive', path))
              : unwrap(await api.POST('/para/{id}/unarchive', path));
      if (selected?.id === item.id) setSelected(updated);
      tree.reload();
    });
  const rescan = () =>
    action.run(async () => {
      try {
        setJobId(unwrap(await api.POST('/para/rescan')).job_id);
      } catch (e) {
        if (e instanceof ApiError && e.status === 429 && e.retryAfter !== null) {
          setWaitUntil(Date.now() + e.retryAfter * 1000);
          setNow(Date.now());
          return;
        }
        throw e;
      }
    });

  return (
    <main id="main">
      <div className="row">
        <h1 className="grow">PARA</h1>
        <button type="button" onClick={() => void rescan()} disabled={action.busy || waitSeconds > 0}>
          Rescan orphan nodes
        </button>
      </div>
      {waitSeconds > 0 && (
        <p className="notice" role="status">
          A rescan ran recently: you can start another in {waitSeconds} s.
        </p>
      )}
      {job && (
        <p className="notice" role="status" data-testid="job">
          {job.kind === 'rescan' ? 'Rescan' : 'Match'} {job.status}: {job.done} of {job.queued} orphan nodes scored,{' '}
          {job.assigned} assigned.
        </p>
      )}
      <ErrorNote error={action.error ?? tree.error} />
      <div className="split">
        <div>
          <CreateItem onCreated={tree.reload} />
          <div className="tree">
            {tree.data?.categories.map((group) => (
              <section key={group.category} aria-labelledby={`cat-${group.category}`}>
                <h2 id={`cat-${group.category}`} style={{ textTransform: 'capitalize' }}>
                  {group.category}
                </h2>
                {group.items.length === 0 && <p className="muted">None yet.</p>}
                <ul className="plain">
                  {group.items.map((item) => (
                    <li key={item.id} className="row" data-testid={`para-${item.slug}`}>
                      <button
                        type="button"
                        className="link"
                        aria-pressed={selected?.id === item.id}
                        onClick={() => setSelected(item)}
                      >
                        {item.label}
                      </button>
                      <span className={`badge ${item.status}`}>{item.status}</span>
                      <span className="grow" />
                      {item.category === 'projects' && item.status === 'active' && (
                        <button type="button" onClick={() => void lifecycle(item, 'complete')}>
                          Complete
                        </button>
                      )}
                      {item.status === 'completed' && (
                        <button type="button" onClick={() => void lifecycle(item, 'undo-complete')}>
                          Undo complete
                        </button>
                      )}
                      {item.status === 'active' && (
                        <button type="button" onClick={() => void lifecycle(item, 'match')}>
                          Match
                        </button>
                      )}
                      {item.status === 'archived' ? (
                        <button type="button" onClick={() => void lifecycle(item, 'unarchive')}>
                          Unarchive
                        </button>
                      ) : (
                        <button type="button" onClick={() => void lifecycle(item, 'archive')}>
                          Archive
                        </button>
                      )}
                    </li>
                  ))}
                </ul>
              </section>
            ))}
          </div>
        </div>
        <div>{selected && <ItemNodes key={`${selected.id}-${selected.status}`} item={selected} />}</div>
      </div>
    </main>
  );
}

function CreateItem({ onCreated }: { onCreated: () => void }) {
  const [category, setCategory] = useState<Category>('projects');
  const [label, setLabel] = useState('');
  const [description, setDescription] = useState('');
  const action = useAction();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      unwrap(await api.POST('/para', { body: { category, label, ...(description ? { description } : {}) } }));
      setLabel('');
      setDescription('');
      onCreated();
    });
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="new-para">
      <h2 id="new-para">New PARA item</h2>
      <div className="row">
        <label className="inline" htmlFor="para-category">
          Category
        </label>
        <select id="para-category" value={category} onChange={(e) => setCategory(e.target.value as Category)}>
          <option value="projects">project</option>
          <option value="areas">area</option>
          <option value="resources">resource</option>
        </select>
      </div>
      <label htmlFor="para-label">Label</label>
      <input id="para-label" required maxLength={200} value={label} onChange={(e) => setLabel(e.target.value)} />
      <label htmlFor="para-description">Description (optional, used to match nodes)</label>
      <input id="para-description" value={description} onChange={(e) => setDescription(e.target.value)} />
      <div className="row end">
        <button type="submit" className="primary" disabled={action.busy}>
          Create item
        </button>
      </div>
      <ErrorNote error={action.error} />
    </form>
  );
}

/** The nodes assigned to an item (GET /nodes?para_item_id=…). */
function ItemNodes({ item }: { item: Item }) {
  const nodes = useLoad(
    async () => unwrap(await api.GET('/nodes', { params: { query: { para_item_id: item.id, per_page: 100 } } })),
    [item.id],
  );
  return (
    <section className="card" aria-labelledby="item-title">
      <h2 id="item-title">{item.label}</h2>
      <p className="muted">
        {item.category} · {item.status} · created {formatTime(item.created_at)}
        {item.completed_at && ` · completed ${formatTime(item.completed_at)}`}
        {item.archived_at && ` · archived ${formatTime(item.archived_at)}`}
      </p>
      {item.description && <p>{item.description}</p>}
      <h3>Nodes</h3>
      <ErrorNote error={nodes.error} />
      <ul className="plain" data-testid="item-nodes">
        {nodes.data?.data.map((n) => (
          <li key={n.id}>
            <Link href={`/nodes/${n.id}`}>{n.title}</Link>
          </li>
        ))}
      </ul>
      {nodes.data?.data.length === 0 && <p className="muted">No nodes in this item.</p>}
    </section>
  );
}
