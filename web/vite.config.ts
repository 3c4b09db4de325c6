import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

const webRoot = fileURLToPath(new URL('.', import.meta.url));

/**
 * The SPA's build. `npm run dev` (infra/local/dev.ts) starts Vite with this file and
 * adds the proxy for /api, /config.json and /local itself; `npm run build:web` builds
 * to web/dist, which the CDK site construct uploads.
 */
export default defineConfig({
  root: webRoot,
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
  },
  server: {
    // shared/ lives beside web/, outside Vite's root.
    fs: { allow: [fileURLToPath(new URL('..', import.meta.url))] },
  },
});
