/**
 * The first paint of the pages a visitor may open directly (a shared link, a search
 * result). index.html is one file for every path, so small inline scripts read the path:
 * - in the head, before any JavaScript has loaded: modulepreload links for the app (the
 *   entry and what it imports, which Vite would link statically) and for the route's lazy
 *   chunks, which the app would otherwise ask for one after the other (entry, then
 *   DataRoot, then the page). Where the page's largest paint is an image (the scene's
 *   preview, preloaded with fetchpriority=high), all of that code waits until the image
 *   is on screen: on a slow link it would otherwise share the bandwidth with it;
 * - in the body's static shell: the route's loading state as React renders it (for
 *   /customize/{id}: the scene's title, description and preview), so it paints before
 *   the code has arrived, as the home page's hero does.
 * The entry's stylesheet is written into the page: it is the one thing the first paint
 * waits for, and a request of its own costs a phone on a slow network a round trip.
 * And the app starts once that shell has been painted: its code is asked for at once
 * (or once the image is shown), but runs after the first frame, so a busy phone shows
 * the page before it spends a few hundred milliseconds starting React.
 */
import type { Plugin } from 'vite';
import type { OutputBundle, OutputChunk } from 'rolldown';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router-dom';
import { scenes } from '#shared/catalogue';
import { CustomizeIntro, firstPreviewImage } from './src/customize/CustomizeIntro';

interface RoutePreload {
  /** The path, as a regular expression; its first group picks the image. */
  pattern: string;
  /** Lazy modules the route renders, relative to web/. */
  modules: string[];
  /** The largest image, by the pattern's first group. */
  images: Record<string, string>;
  /** The static first paint, by the pattern's first group. */
  shells: Record<string, string>;
}

/** Where index.html wants the preloads: early in the head, so their requests start before the app's. */
const PRELOADS = '<!-- route-preloads -->';
/** Where the static shell's page content goes. */
const SHELL = '<!-- route-shell -->';

const ROUTES: RoutePreload[] = [
  {
    pattern: '^/customize/(\\d+)/?$',
    modules: ['src/data/DataRoot.tsx', 'src/customize/CustomizePage.tsx'],
    images: Object.fromEntries(scenes.map((scene) => [String(scene.id), firstPreviewImage(scene)])),
    shells: Object.fromEntries(scenes.map((scene) => [String(scene.id), renderToStaticMarkup(createElement(MemoryRouter, null, createElement(CustomizeIntro, { scene })))])),
  },
];

function chunksOf(bundle: OutputBundle): OutputChunk[] {
  return Object.values(bundle).filter((output): output is OutputChunk => output.type === 'chunk');
}

/** A chunk's file and every file it imports statically, with their CSS. */
function filesOf(bundle: OutputBundle, entry: OutputChunk): { scripts: string[]; styles: string[] } {
  const scripts = new Set<string>();
  const styles = new Set<string>();
  const visit = (chunk: OutputChunk) => {
    if (scripts.has(chunk.fileName)) return;
    scripts.add(chunk.fileName);
    for (const css of chunk.viteMetadata?.importedCss ?? []) styles.add(css);
    for (const name of chunk.imports) {
      const imported = bundle[name];
      if (imported?.type === 'chunk') visit(imported);
    }
  };
  visit(entry);
  return { scripts: [...scripts], styles: [...styles] };
}

export function firstPaint(): Plugin {
  return {
    name: 'first-paint',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        if (!bundle || !html.includes(PRELOADS) || !html.includes(SHELL)) throw new Error(`first-paint: index.html needs ${PRELOADS}, ${SHELL} and a bundle`);
        // What index.html links already (the entry and its imports) is left out.
        const entry = chunksOf(bundle).find((chunk) => chunk.isEntry);
        if (!entry) throw new Error('first-paint: no entry chunk');
        const initial = filesOf(bundle, entry);
        const linked = new Set([...initial.scripts, ...initial.styles]);
        const routes = ROUTES.map(({ pattern, modules, images }) => {
          const pages = modules.map((module) => {
            const chunk = chunksOf(bundle).find((candidate) => candidate.facadeModuleId?.replaceAll('\\', '/').endsWith(`/web/${module}`));
            if (!chunk) throw new Error(`first-paint: no chunk for ${module}`);
            return chunk;
          });
          const files = pages.map((chunk) => filesOf(bundle, chunk));
          const unique = (list: string[]) => [...new Set(list)].filter((file) => !linked.has(file)).map((file) => `/${file}`);
          const own = unique(pages.map((chunk) => chunk.fileName));
          const scripts = unique(files.flatMap((file) => file.scripts)).filter((file) => !own.includes(file));
          return { pattern, pages: own, scripts, styles: unique(files.flatMap((file) => file.styles)), images };
        });
        // Vite links the entry and what it imports; those links move into the head script,
        // so that on a route with a preview they wait for it too.
        const entryScript = new RegExp(`<script type="module" crossorigin src="/${entry.fileName.replaceAll('.', '\\.')}"></script>`);
        if (!entryScript.test(html)) throw new Error('first-paint: no entry script in index.html');
        const modulepreload = /\s*<link rel="modulepreload" crossorigin href="([^"]+)">/g;
        const app = [`/${entry.fileName}`, ...[...html.matchAll(modulepreload)].map((link) => link[1])];
        html = html.replace(entryScript, '').replaceAll(modulepreload, '');
        const script = `(() => {
  const add = (attributes, loaded) => {
    const link = document.createElement('link');
    for (const [name, value] of Object.entries(attributes)) link.setAttribute(name, value);
    if (loaded) link.onload = link.onerror = loaded;
    document.head.append(link);
  };
  // After the next frame, or a tenth of a second where no frame comes (a hidden tab).
  const frame = () => new Promise((done) => { requestAnimationFrame(() => setTimeout(done)); setTimeout(done, 100); });
  // Once the image is on screen, as the browser reports the page's largest paint; where it
  // does not (no such report, a hidden tab, a larger paint elsewhere), a frame after the
  // image has loaded, and at most half a second more.
  const shown = (href) => new Promise((done) => {
    const url = new URL(href, location.href).href;
    const reported = self.PerformanceObserver?.supportedEntryTypes?.includes('largest-contentful-paint');
    if (reported) new PerformanceObserver((list, observer) => { if (list.getEntries().some((entry) => entry.url === url)) { observer.disconnect(); done(); } }).observe({ type: 'largest-contentful-paint', buffered: true });
    add({ rel: 'preload', as: 'image', href, fetchpriority: 'high' }, () => frame().then(() => setTimeout(done, reported ? 500 : 0)));
  });
  const code = (scripts, styles = []) => {
    for (const href of styles) add({ rel: 'stylesheet', href });
    for (const href of scripts) add({ rel: 'modulepreload', crossorigin: '', href });
  };
  const route = ${JSON.stringify(routes)}.map((candidate) => ({ ...candidate, match: new RegExp(candidate.pattern).exec(location.pathname) })).find(({ match }) => match);
  const image = route?.images[route.match[1]];
  // The app and the route's pages first, then the modules the pages import, a few a task:
  // each link starts its request, which costs a slow phone a little, and the route's twenty
  // at once would be a long task just as its image has been painted.
  const ask = async () => {
    code(${JSON.stringify(app)});
    if (!route) return;
    code(route.pages, route.styles);
    for (let index = 0; index < route.scripts.length; index += 5) {
      await new Promise((done) => setTimeout(done));
      code(route.scripts.slice(index, index + 5));
    }
  };
  // The image is what the visitor sees first: on a slow link the code waits for it.
  const asked = image ? shown(image).then(ask) : ask();
  // The app starts once the page is parsed, its code asked for and its first paint shown:
  // a busy phone shows the page before it spends a few hundred milliseconds starting React.
  const parsed = new Promise((done) => document.addEventListener('DOMContentLoaded', done));
  Promise.all([parsed, asked]).then(frame).then(() => import(${JSON.stringify(`/${entry.fileName}`)}));
})();`;
        const shell = `(() => {
  for (const route of ${JSON.stringify(ROUTES.map(({ pattern, shells }) => ({ pattern, shells }))).replaceAll('<', '\\u003c')}) {
    const match = new RegExp(route.pattern).exec(location.pathname);
    if (match && route.shells[match[1]]) document.currentScript.insertAdjacentHTML('beforebegin', route.shells[match[1]]);
  }
})();`;
        const stylesheet = /<link rel="stylesheet" crossorigin href="\/(assets\/[^"]+\.css)">/;
        const css = bundle[stylesheet.exec(html)?.[1] ?? ''];
        if (css?.type !== 'asset') throw new Error('first-paint: no entry stylesheet in index.html');
        const text = typeof css.source === 'string' ? css.source : new TextDecoder().decode(css.source);
        html = html.replace(stylesheet, () => `<style>${text.replaceAll('</style', '<\\/style')}</style>`);
        return html.replace(PRELOADS, `<script>${script}</script>`).replace(SHELL, `<script>${shell}</script>`);
      },
    },
  };
}
