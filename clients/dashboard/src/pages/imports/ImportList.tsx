import { formatTime } from '../../components/ui';
import { percentRead, type Import } from './format';

/** The tenant's imports, newest first; Show opens one above (its progress, counts and errors). */
export function ImportList({ imports, onShow }: { imports: Import[]; onShow: (imp: Import) => void }) {
  return (
    <table data-testid="import-list">
      <caption className="skip">Past imports</caption>
      <thead>
        <tr>
          <th scope="col">File</th>
          <th scope="col">Status</th>
          <th scope="col">Read</th>
          <th scope="col">Created</th>
          <th scope="col">Duplicates</th>
          <th scope="col">Skipped</th>
          <th scope="col">Invalid</th>
          <th scope="col">Started</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {imports.map((imp) => (
          <tr key={imp.id}>
            <td>{imp.filename}</td>
            <td>{imp.status}</td>
            <td>{percentRead(imp)}%</td>
            <td>{imp.counts.created}</td>
            <td>{imp.counts.duplicates}</td>
            <td>{imp.counts.skipped}</td>
            <td>{imp.counts.invalid}</td>
            <td>{formatTime(imp.created_at)}</td>
            <td>
              <button
                type="button"
                onClick={() => onShow(imp)}
                aria-label={`Show ${imp.filename}, ${formatTime(imp.created_at)}`}
              >
                Show
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
