import { useRef, useState, type FormEvent } from 'react';
import { uploadImport } from '../../api/upload';
import { ErrorNote } from '../../components/ui';
import { useAction } from '../../hooks';
import type { Import } from './format';

/** The file picker, the PARA option and the start button; the upload's own progress while it is sent. */
export function ImportForm({ onStarted }: { onStarted: (imp: Import) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [para, setPara] = useState(false);
  const [sent, setSent] = useState<number | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const action = useAction();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!file) {
      action.setError(new Error('Choose a bookmark file first.'));
      return;
    }
    void action.run(async () => {
      setSent(0);
      try {
        const started = await uploadImport(file, { para }, setSent);
        setFile(null);
        if (input.current) input.current.value = '';
        onStarted(started);
      } finally {
        setSent(null);
      }
    });
  };

  return (
    <form className="card" onSubmit={submit} aria-labelledby="new-import-title">
      <h2 id="new-import-title">New import</h2>
      <label htmlFor="import-file">Bookmark file</label>
      <input
        id="import-file"
        ref={input}
        type="file"
        accept=".html,.htm,.csv,.json,text/html,text/csv,application/json"
        onChange={(e) => setFile(e.target.files?.[0] ?? null)}
        aria-describedby="import-file-help"
      />
      <p id="import-file-help" className="muted">
        A browser’s bookmark export (HTML: Chrome, Firefox, Safari, Edge; also Raindrop, Linkwarden, Karakeep and
        Pocket’s HTML), Pocket’s CSV export or Karakeep’s JSON export, up to 100 MiB.
      </p>
      <label className="inline">
        <input type="checkbox" checked={para} onChange={(e) => setPara(e.target.checked)} />
        Folders also become PARA items
      </label>
      {sent !== null && (
        <p>
          <label htmlFor="import-upload-progress">Upload</label>{' '}
          <progress id="import-upload-progress" max={1} value={sent} /> {Math.round(sent * 100)}%
        </p>
      )}
      <ErrorNote error={action.error} />
      <div className="row end">
        <button type="submit" className="primary" disabled={action.busy}>
          Start import
        </button>
      </div>
    </form>
  );
}
