// Builds the dashboard into dist/dashboard-assets, which the server serves at / (src/dashboard/assets.ts).
// Every asset is bundled (no CDN); the CSP allows only same-origin scripts, so nothing is inlined.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard-assets', import.meta.url)),
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    target: 'es2022',
  },
  server: { proxy: { '/v1': 'http://127.0.0.1:8080' } },
});
