import { defineConfig } from '@playwright/test';

/**
 * Browser tests (npm run test:browser): Playwright's runner driving Debian's Chromium
 * (scripts/dashboard/chromium.sh installs it with apt-get and exports KG_CHROMIUM; Playwright's
 * own browser download is never used) against the embedded server that tests/support/global-setup.ts
 * starts on a fresh DATA_DIR. Screenshots and traces go to browser-results/ (git-ignored, the CI artefacts).
 */
const chromium = process.env['KG_CHROMIUM'];
if (!chromium) throw new Error('KG_CHROMIUM is not set: run the browser tests with `npm run test:browser`');

export default defineConfig({
  testDir: 'tests',
  // *.spec.ts: npm run test:browser; *.bench.ts: npm run bench:dashboard.
  projects: [
    { name: 'browser', testMatch: /.*\.spec\.ts$/ },
    // The bench answers the API from page.route: no service worker in between (src/pwa.ts).
    { name: 'bench', testMatch: /.*\.bench\.ts$/, use: { serviceWorkers: 'block' } },
  ],
  outputDir: '../../browser-results/output',
  globalSetup: './tests/support/global-setup.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: true,
  timeout: 180_000,
  expect: { timeout: 30_000 },
  reporter: [['list'], ['html', { outputFolder: '../../browser-results/report', open: 'never' }]],
  use: {
    browserName: 'chromium',
    viewport: { width: 1366, height: 800 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: chromium,
      // WebGL (sigma.js) through SwiftShader, the software renderer a headless machine has.
      args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist'],
    },
  },
});
