import { lazy, Suspense, useEffect, useState } from 'react';
import { isSignedIn, onSessionChange, refresh, signOut } from './api/session';
import { Link, useLocation } from './router';
import { MagicLinkLanding, OidcCallback, SignInForm } from './pages/SignIn';
import { ErrorBoundary } from './components/ErrorBoundary';

const GraphPage = lazy(() => import('./pages/Graph'));
const NodesPage = lazy(() => import('./pages/Nodes'));
const CapturesPage = lazy(() => import('./pages/Captures'));
const ParaPage = lazy(() => import('./pages/Para'));
const HealthPage = lazy(() => import('./pages/Health'));
const ApiKeysPage = lazy(() => import('./pages/ApiKeys'));
const WebhooksPage = lazy(() => import('./pages/Webhooks'));
const ImportsPage = lazy(() => import('./pages/Imports'));
const SharePage = lazy(() => import('./pages/Share'));

const NAV = [
  { href: '/graph', label: 'Graph' },
  { href: '/nodes', label: 'Nodes' },
  { href: '/captures', label: 'Captures' },
  { href: '/captures/import', label: 'Captures › Import bookmarks' },
  { href: '/para', label: 'PARA' },
  { href: '/health', label: 'Health' },
  { href: '/settings/api-keys', label: 'Settings › API Keys' },
  { href: '/settings/webhooks', label: 'Settings › Webhooks' },
];

/** The nav item of a path: the longest href it starts with (Captures › Import bookmarks, not Captures). */
function currentNav(path: string): string | undefined {
  if (path === '/') return '/graph';
  return NAV.filter((item) => path === item.href || path.startsWith(`${item.href}/`))
    .map((item) => item.href)
    .sort((a, b) => b.length - a.length)[0];
}

function Page({ path }: { path: string }) {
  if (path === '/' || path.startsWith('/graph')) return <GraphPage />;
  if (path.startsWith('/nodes')) return <NodesPage />;
  if (path === '/captures/import') return <ImportsPage />;
  if (path.startsWith('/captures')) return <CapturesPage />;
  if (path.startsWith('/para')) return <ParaPage />;
  if (path.startsWith('/health')) return <HealthPage />;
  if (path.startsWith('/settings/api-keys')) return <ApiKeysPage />;
  if (path.startsWith('/settings/webhooks')) return <WebhooksPage />;
  if (path === '/share') return <SharePage />;
  return (
    <main id="main">
      <h1>Not found</h1>
      <p>
        There is no page at {path}. <Link href="/">Open the graph</Link>.
      </p>
    </main>
  );
}

/** Signed out: the sign-in form (or the landing of a mailed link / OpenID callback). */
export function App() {
  const url = useLocation();
  const [state, setState] = useState<'checking' | 'in' | 'out'>(isSignedIn() ? 'in' : 'checking');
  useEffect(() => onSessionChange((signedIn) => setState(signedIn ? 'in' : 'out')), []);
  useEffect(() => {
    if (state === 'checking') void refresh().then((ok) => setState(ok || isSignedIn() ? 'in' : 'out'));
  }, [state]);

  if (url.pathname === '/sign-in' && (state !== 'in' || location.hash)) return <MagicLinkLanding />;
  if (url.pathname === '/auth/callback') return <OidcCallback />;
  if (state === 'checking')
    return (
      <main className="signin" id="main">
        <p role="status">Loading…</p>
      </main>
    );
  if (state === 'out') return <SignInForm />;

  const path = url.pathname === '/sign-in' ? '/' : url.pathname;
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header>
        <span className="brand">Knowledge Graph</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map((item) => {
              const current = currentNav(path) === item.href;
              return (
                <li key={item.href}>
                  <Link href={item.href} aria-current={current ? 'page' : undefined}>
                    {item.label}
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <Suspense
        fallback={
          <main id="main">
            <p role="status">Loading…</p>
          </main>
        }
      >
        <ErrorBoundary key={path}>
          <Page path={path} />
        </ErrorBoundary>
      </Suspense>
    </div>
  );
}
