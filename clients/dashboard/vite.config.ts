import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The gateway serves dist/ at / (services/gateway/src/http/dashboard.ts): hashed files under
 * /assets/ are cached for a year, index.html never. `npm run dev -w @kg/dashboard` proxies
 * /api to a server on :8080.
 */
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // Nothing inlined as data: URLs beyond tiny files; no source maps shipped.
    sourcemap: false,
    chunkSizeWarningLimit: 1500,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
