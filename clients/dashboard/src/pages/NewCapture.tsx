import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { uploadCapture } from '../api/upload';
import { ErrorNote } from '../components/ui';
import { useAction } from '../hooks';

type Kind = 'note' | 'url' | 'file';

/** A new capture: a note, a web address, or a file (drag and drop or picker, with progress). */
export function NewCapture({ onCreated }: { onCreated: (id: string) => void }) {
  const [kind, setKind] = useState<Kind>('note');
  const [title, setTitle] = useState('');
  const [text, setText] = useState('');
  const [url, setUrl] = useState('');
  const [why, setWhy] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [over, setOver] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  const action = useAction();

  const reset = () => {
    setTitle('');
    setText('');
    setUrl('');
    setWhy('');
    setFile(null);
    setProgress(null);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const extra = why ? { why } : {};
      let id: string;
      if (kind === 'note') {
        id = unwrap(
          await api.POST('/captures', {
            body: { title, content_type: 'note', raw_content: text, source: 'api', ...extra },
          }),
        ).id;
      } else if (kind === 'url') {
        id = unwrap(
          await api.POST('/captures', {
            body: { title: title || url, url, content_type: 'article', source: 'api', ...extra },
          }),
        ).id;
      } else {
        if (!file) throw new Error('Choose or drop a file first');
        setProgress(0);
        id = (await uploadCapture(file, { ...(title ? { title } : {}), ...extra }, setProgress)).id;
      }
      reset();
      onCreated(id);
    });
  };
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const dropped = e.dataTransfer.files[0];
    if (dropped) {
      setKind('file');
      setFile(dropped);
    }
  };

  return (
    <form
      className="card"
      onSubmit={submit}
      aria-labelledby="new-capture"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={drop}
    >
      <h2 id="new-capture">New capture</h2>
      <div className="tabs" role="group" aria-label="Kind of capture">
        {(['note', 'url', 'file'] as const).map((k) => (
          <button key={k} type="button" aria-pressed={kind === k} onClick={() => setKind(k)}>
            {k === 'note' ? 'Note' : k === 'url' ? 'Web address' : 'File'}
          </button>
        ))}
      </div>
      {kind === 'url' && (
        <>
          <label htmlFor="capture-url">Web address</label>
          <input id="capture-url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
        </>
      )}
      <label htmlFor="capture-title">Title{kind === 'note' ? '' : ' (optional)'}</label>
      <input
        id="capture-title"
        required={kind === 'note'}
        maxLength={500}
        value={title}
        onChange={(e) => setTitle(e.target.value)}
      />
      {kind === 'note' && (
        <>
          <label htmlFor="capture-text">Note</label>
          <textarea id="capture-text" required value={text} onChange={(e) => setText(e.target.value)} />
        </>
      )}
      {kind === 'file' && (
        <div className={`dropzone${over ? ' over' : ''}`} data-testid="dropzone">
          <p>{file ? `${file.name} (${Math.ceil(file.size / 1024)} KiB)` : 'Drop a file here (up to 25 MiB), or'}</p>
          <input
            ref={picker}
            id="capture-file"
            type="file"
            hidden
            onChange={(e) => setFile(e.target.files?.[0] ?? null)}
          />
          <button type="button" onClick={() => picker.current?.click()}>
            Choose a file
          </button>
          {progress !== null && (
            <p>
              <label htmlFor="upload-progress">Upload</label>
              <progress id="upload-progress" max={1} value={progress} /> {Math.round(progress * 100)}%
            </p>
          )}
        </div>
      )}
      <label htmlFor="capture-why">Why it matters (optional)</label>
      <input id="capture-why" maxLength={5000} value={why} onChange={(e) => setWhy(e.target.value)} />
      <div className="row end">
        <button type="submit" className="primary" disabled={action.busy}>
          {kind === 'file' ? 'Upload' : 'Capture'}
        </button>
      </div>
      <ErrorNote error={action.error} />
    </form>
  );
}
