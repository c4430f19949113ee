import { useState, type FormEvent } from 'react';
import { contentTypeOfUrl, webAddress } from '@kg/sdk/capture-kinds';
import { api, unwrap } from '../api/client';
import { deleteShare, readShare, readShareFile, readShares, type Share } from '../api/share-inbox';
import { uploadCapture } from '../api/upload';
import { ErrorNote, formatTime } from '../components/ui';
import { useAction, useLoad } from '../hooks';
import { Link, navigate, useLocation } from '../router';

const MAX_TITLE = 500;

/** Why a share could not reach the inbox (the service worker's redirect says which). */
const ERRORS: Record<string, string> = {
  'too-large': 'What was shared is larger than the 25 MiB a capture may hold.',
  unreadable: 'What was shared could not be read.',
};

/**
 * The Web Share Target's landing page (/share?id=…): what another app shared, kept by the
 * service worker, shown for review. Nothing is saved until the person presses Save, so a
 * form another site posts to /share can only fill this page in.
 */
export default function SharePage() {
  const url = useLocation();
  const id = url.searchParams.get('id');
  const error = url.searchParams.get('error');
  return (
    <main id="main">
      <h1>Shared with Knowledge Graph</h1>
      {url.searchParams.has('unsupported') && (
        <p className="error" role="alert">
          This browser sent the share to the server before the app was set up on it, so nothing was kept. Open the
          dashboard once in this browser (or install it), then share again.
        </p>
      )}
      {error && (
        <p className="error" role="alert">
          {ERRORS[error] ?? 'The share could not be kept.'}
        </p>
      )}
      {id ? <ShareReview key={id} id={id} /> : <PendingShares />}
    </main>
  );
}

function PendingShares() {
  const shares = useLoad(readShares, []);
  if (shares.loading && !shares.data) return <p role="status">Loading…</p>;
  if (shares.error) return <ErrorNote error={shares.error} />;
  const list = shares.data ?? [];
  if (!list.length)
    return <p>Nothing shared is waiting. Use your device&apos;s Share menu and pick Knowledge Graph.</p>;
  return (
    <section aria-labelledby="pending-shares">
      <h2 id="pending-shares">Waiting for review</h2>
      <ul data-testid="pending-shares">
        {list.map((s) => (
          <li key={s.id}>
            <Link href={`/share?id=${s.id}`}>{describe(s)}</Link> · {formatTime(s.received_at)}
          </li>
        ))}
      </ul>
    </section>
  );
}

const describe = (s: Share) => s.title || s.file?.name || s.url || s.text.slice(0, 80) || 'An empty share';

/** What the share becomes: its file; else a web address (given, or the whole text); else a note. */
function kindOf(s: Share): { kind: 'file' } | { kind: 'url'; url: string } | { kind: 'note' } {
  if (s.file) return { kind: 'file' };
  const address = webAddress(s.url) ?? webAddress(s.text);
  if (address) return { kind: 'url', url: address };
  return { kind: 'note' };
}

function ShareReview({ id }: { id: string }) {
  const loaded = useLoad(() => readShare(id), [id]);
  if (loaded.loading && !loaded.data) return <p role="status">Loading…</p>;
  if (loaded.error || !loaded.data)
    return (
      <>
        <ErrorNote error={loaded.error ?? new Error('This share is no longer kept.')} />
        <p>
          <Link href="/share">See what is waiting</Link>
        </p>
      </>
    );
  return <ShareForm share={loaded.data} />;
}

function ShareForm({ share }: { share: Share }) {
  const shape = kindOf(share);
  const sharedText = share.text.trim();
  // The text of a URL share is what came with it (often the page's title or a quote), unless it is the URL itself.
  const quote = shape.kind === 'url' && sharedText !== shape.url ? sharedText : '';
  const [title, setTitle] = useState(
    (share.title || (shape.kind === 'note' ? sharedText.split('\n')[0]! : '') || '').slice(0, MAX_TITLE),
  );
  const [address, setAddress] = useState(shape.kind === 'url' ? shape.url : '');
  const [body, setBody] = useState(shape.kind === 'note' ? sharedText : quote);
  const [why, setWhy] = useState('');
  const [progress, setProgress] = useState<number | null>(null);
  const action = useAction();

  const save = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const extra = why.trim() ? { why: why.trim() } : {};
      let captureId: string;
      if (shape.kind === 'file') {
        const file = await readShareFile(share);
        setProgress(0);
        captureId = (await uploadCapture(file, { ...(title ? { title } : {}), ...extra }, setProgress)).id;
      } else if (shape.kind === 'url') {
        const selected = body.trim() ? { selected_text: body.trim() } : {};
        captureId = unwrap(
          await api.POST('/captures', {
            body: {
              title: title.trim() || address,
              url: address.trim(),
              content_type: contentTypeOfUrl(address),
              source: 'api',
              ...selected,
              ...extra,
            },
          }),
        ).id;
      } else {
        captureId = unwrap(
          await api.POST('/captures', {
            body: { title: title.trim(), content_type: 'note', raw_content: body, source: 'api', ...extra },
          }),
        ).id;
      }
      await deleteShare(share.id);
      navigate(`/captures/${captureId}`);
    });
  };
  const discard = () =>
    void action.run(async () => {
      await deleteShare(share.id);
      navigate('/share', { replace: true });
    });

  return (
    <form className="card" onSubmit={save} aria-labelledby="share-review">
      <h2 id="share-review">Review before saving</h2>
      <p>Received {formatTime(share.received_at)}. Nothing is saved until you press Save.</p>
      {share.refused && (
        <p className="error" role="alert">
          {share.refused}
        </p>
      )}
      {share.files_ignored > 0 && (
        <p role="note">
          Only the first file is kept: {share.files_ignored} more {share.files_ignored === 1 ? 'was' : 'were'} shared.
        </p>
      )}
      {shape.kind === 'file' && share.file && (
        <p data-testid="shared-file">
          File: {share.file.name} ({Math.ceil(share.file.size / 1024)} KiB)
        </p>
      )}
      {shape.kind === 'url' && (
        <>
          <label htmlFor="share-url">Web address</label>
          <input
            id="share-url"
            type="url"
            required
            maxLength={2048}
            value={address}
            onChange={(e) => setAddress(e.target.value)}
          />
        </>
      )}
      <label htmlFor="share-title">Title{shape.kind === 'note' ? '' : ' (optional)'}</label>
      <input
        id="share-title"
        required={shape.kind === 'note'}
        maxLength={MAX_TITLE}
        value={title}
        onChange={(e) => setTitle(e.target.value)}
      />
      {shape.kind !== 'file' && (
        <>
          <label htmlFor="share-text">{shape.kind === 'url' ? 'Quote (optional)' : 'Note'}</label>
          <textarea
            id="share-text"
            required={shape.kind === 'note'}
            value={body}
            onChange={(e) => setBody(e.target.value)}
          />
        </>
      )}
      <label htmlFor="share-why">Why it matters (optional)</label>
      <input id="share-why" maxLength={5000} value={why} onChange={(e) => setWhy(e.target.value)} />
      {progress !== null && (
        <p>
          <label htmlFor="share-progress">Upload</label>
          <progress id="share-progress" max={1} value={progress} /> {Math.round(progress * 100)}%
        </p>
      )}
      <div className="row end">
        <button type="button" onClick={discard} disabled={action.busy}>
          Discard
        </button>
        <button
          type="submit"
          className="primary"
          disabled={action.busy || (shape.kind === 'file' && !share.file) || (!!share.refused && !sharedText)}
        >
          Save
        </button>
      </div>
      <ErrorNote error={action.error} />
    </form>
  );
}
