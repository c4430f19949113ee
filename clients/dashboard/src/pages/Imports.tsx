import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ui';
import { Pager } from '../components/Pager';
import { useLoad } from '../hooks';
import { Link } from '../router';
import { ImportForm } from './imports/ImportForm';
import { ImportList } from './imports/ImportList';
import { ImportProgress } from './imports/ImportProgress';
import { isFinal, type Import } from './imports/format';

const PER_PAGE = 20;

/**
 * Captures › Import bookmarks: upload a bookmark export (POST /imports), follow the import the
 * server runs in the background (progress, counts, the entries it could not import by line,
 * cancel), and the past imports.
 */
export default function ImportsPage() {
  const [page, setPage] = useState(1);
  const [changes, setChanges] = useState(0);
  const list = useLoad(
    async () => unwrap(await api.GET('/imports', { params: { query: { page, per_page: PER_PAGE } } })),
    [page, changes],
  );
  const rows = list.data?.data ?? [];
  /** The import shown above the list: the one just started, or one picked from it (else the newest running). */
  const [picked, setPicked] = useState<Import | null>(null);
  const shown = picked ?? rows.find((i) => !isFinal(i)) ?? null;
  const refresh = () => setChanges((n) => n + 1);

  return (
    <main id="main">
      <h1>Import bookmarks</h1>
      <p className="muted">
        Each bookmark becomes a URL capture, fetched and processed like any other (see{' '}
        <Link href="/captures">Captures</Link>). Folders become tags, a bookmark’s date and note are kept; addresses you
        already captured are counted as duplicates, and <code>javascript:</code>, <code>data:</code> or{' '}
        <code>file:</code> addresses are skipped. The server reads the file in the background: you can leave this page.
      </p>
      <ImportForm
        onStarted={(imp) => {
          setPicked(imp);
          setPage(1);
          refresh();
        }}
      />
      {shown && (
        <ImportProgress
          key={shown.id}
          initial={shown}
          onChanged={(imp) => {
            // Kept shown once it has finished (or was cancelled), with the list read again.
            setPicked(imp);
            refresh();
          }}
        />
      )}
      <ErrorNote error={list.error} />
      <h2>Past imports</h2>
      {rows.length === 0 && !list.loading && <p className="muted">No imports yet.</p>}
      {rows.length > 0 && (
        <>
          <ImportList imports={rows} onShow={setPicked} />
          <Pager
            page={page}
            perPage={PER_PAGE}
            total={list.data?.total ?? 0}
            onPage={setPage}
            label="Pages of imports"
          />
        </>
      )}
    </main>
  );
}
