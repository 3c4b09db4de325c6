import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { firstPaint } from './first-paint';

/**
 * zod and the modules that build schemas with it (and the constants only the API
 * document reads): loaded with the pages that validate forms.
 */
const FORMS = /node_modules[\\/]zod[\\/]|shared[\\/](schemas|site-config|render-api|openapi|rate-limit)\.ts$/;
/** zod's no-eval setting, which every schema module imports first: in the forms' chunk, it runs before them. */
const ZOD_SETTING = /shared[\\/]zod\.ts$/;

/**
 * What the home page itself runs (React, the router, the catalogue and its rules): one
 * chunk instead of ten small shared ones, which gzip worse and cost a request each.
 */
const SHELL = /node_modules[\\/](react|react-dom|scheduler|react-router|react-router-dom)[\\/]|shared[\\/](catalogue|pricing|files|messages|numbers|analytics)\.ts$|web[\\/]src[\\/](config\.ts|components[\\/](Icons|ui)\.tsx)$/;

const webRoot = fileURLToPath(new URL('.', import.meta.url));

/**
 * The SPA's build. `npm run dev` (infra/local/dev.ts) starts Vite with this file and
 * adds the proxy for /api, /config.json and /local itself; `npm run build:web` builds
 * to web/dist, which the CDK site construct uploads.
 */
export default defineConfig({
  root: webRoot,
  plugins: [react(), firstPaint()],
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    // Every browser the site supports knows modulepreload: no polyfill in the first paint.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      // zod and the schemas built with it only define values: nothing has to run them
      // in a fixed order, so no chunk is made to import them for ordering's sake.
      treeshake: { moduleSideEffects: (id: string) => (FORMS.test(id) ? false : undefined) },
      output: {
        codeSplitting: {
          includeDependenciesRecursively: false,
          // zod and the forms' schemas in a chunk of their own: left to itself, Rolldown
          // merges them into a chunk the home route loads, and no home module needs them.
          groups: [
            { name: 'forms', test: (id: string) => FORMS.test(id) || ZOD_SETTING.test(id) },
            { name: 'shell', test: SHELL },
          ],
        },
      },
    },
  },
  server: {
    // shared/ lives beside web/, outside Vite's root.
    fs: { allow: [fileURLToPath(new URL('..', import.meta.url))] },
  },
});
