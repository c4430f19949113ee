import { defineConfig } from 'wxt';

/**
 * One source, two builds (`npm run build -w @kg/extension`): Chromium (Manifest V3, a service
 * worker) and Firefox (Manifest V3, an event page), each zipped for its store under .output/.
 *
 * Host access: none at install. The options page asks for the one server it is set up with
 * (optional_host_permissions). KG_EXTENSION_GRANT_HOSTS (tests only: a headless browser cannot
 * answer the permission prompt) grants the listed origins up front instead.
 *
 * `tabs` (every tab's address, for the badge on any site; README.md, "The badge and your
 * browsing") is optional too, asked for from the options page; KG_EXTENSION_GRANT_TABS=1
 * (tests only, for the same reason) grants it up front instead.
 */
const testHosts = (process.env['KG_EXTENSION_GRANT_HOSTS'] ?? '').split(',').filter(Boolean);
const testTabs = process.env['KG_EXTENSION_GRANT_TABS'] === '1';

export default defineConfig({
  imports: false,
  manifestVersion: 3,
  // KG_EXTENSION_OUT: the tests' build goes elsewhere than the store build.
  outDir: process.env['KG_EXTENSION_OUT'] ?? '.output',
  manifest: ({ browser }) => ({
    name: 'Knowledge Graph',
    description: 'Save the page, a selection or a link to your knowledge graph, also offline.',
    permissions: [
      'storage',
      'unlimitedStorage',
      'contextMenus',
      'activeTab',
      'scripting',
      'alarms',
      ...(testTabs ? ['tabs' as const] : []),
    ],
    ...(testTabs ? {} : { optional_permissions: ['tabs' as const] }),
    optional_host_permissions: ['https://*/*', 'http://localhost/*', 'http://127.0.0.1/*'],
    ...(testHosts.length ? { host_permissions: testHosts.map((origin) => `${origin}/*`) } : {}),
    action: { default_title: 'Save to Knowledge Graph' },
    commands: {
      'save-page': { suggested_key: { default: 'Alt+Shift+S' }, description: 'Save this page to Knowledge Graph' },
    },
    icons: { 16: 'icons/16.png', 32: 'icons/32.png', 48: 'icons/48.png', 128: 'icons/128.png' },
    ...(browser === 'firefox'
      ? {
          browser_specific_settings: {
            gecko: { id: 'extension@knowledge-graph.invalid', strict_min_version: '128.0' },
          },
        }
      : {}),
  }),
});
