import { api, unwrap } from '../api/client';
import { ErrorNote } from '../components/ui';
import { useLoad } from '../hooks';
import { Link } from '../router';

const ROWS: { key: string; label: string; href?: string }[] = [
  { key: 'total_nodes', label: 'Nodes', href: '/nodes' },
  { key: 'validated_nodes', label: 'Validated nodes', href: '/nodes?status=validated' },
  { key: 'stale_nodes', label: 'Stale nodes (raw, not updated for 30 days)' },
  { key: 'total_links', label: 'Links' },
  { key: 'total_captures', label: 'Captures', href: '/captures' },
  { key: 'pending_captures', label: 'Pending captures', href: '/captures?status=pending' },
  { key: 'processing_captures', label: 'Processing captures', href: '/captures?status=processing' },
  { key: 'failed_captures', label: 'Failed captures', href: '/captures?status=failed' },
];

/** GET /graph-health: the tenant's counts, each linking to the list it counts. */
export default function HealthPage() {
  const health = useLoad(async () => unwrap(await api.GET('/graph-health')), []);
  const data = health.data as Record<string, number> | undefined;
  const validatedShare = data && data.total_nodes ? Math.round((100 * data.validated_nodes!) / data.total_nodes) : null;
  return (
    <main id="main">
      <div className="row">
        <h1 className="grow">Graph health</h1>
        <button type="button" onClick={health.reload} disabled={health.loading}>
          Refresh
        </button>
      </div>
      <ErrorNote error={health.error} />
      {data && (
        <>
          {validatedShare !== null && (
            <p className="notice">
              {validatedShare}% of your nodes are validated
              {data.failed_captures ? `; ${data.failed_captures} capture(s) failed and can be retried` : ''}.
            </p>
          )}
          <table aria-label="Graph health">
            <tbody>
              {ROWS.map((row) => (
                <tr key={row.key}>
                  <th scope="row">{row.href ? <Link href={row.href}>{row.label}</Link> : row.label}</th>
                  <td data-testid={`health-${row.key}`}>{data[row.key]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </main>
  );
}
