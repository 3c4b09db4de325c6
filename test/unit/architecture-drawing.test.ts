import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * README.md's drawing of the folders and their arrows ("Folders, and which way the arrows run")
 * against the imports the code has: every solid arrow it draws is an import between those folders,
 * and every import between the folders it draws is a solid arrow. A dotted arrow says something
 * else (the adapters serve the ports, they do not import them), so it is never an import.
 */
const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/**
 * Top-level folders of code the drawing leaves out, as its legend says: observability/ may be used by
 * every layer and uses none, client/ imports nothing outside itself and nothing imports it, and the
 * tests, benchmarks and scripts are not part of the running system.
 */
const NOT_DRAWN = ['observability', 'client', 'test', 'bench', 'scripts'];

const CODE = /\.(ts|tsx|mts|js|mjs)$/;

interface Drawing {
  /** A box's id in the drawing, and the folder (ending in /) or file it names. */
  boxes: Map<string, string>;
  /** Solid arrows, `from --> to`, by box id. */
  arrows: { from: string; to: string }[];
}

/** The one mermaid flowchart under the folders' heading, its boxes and its arrows (`a --> b`, `a & b --> c`, `a -. label .-> b`). */
function readDrawing(markdown: string): Drawing {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Folders, and which way the arrows run'));
  const chart = section?.match(/```mermaid\n([\s\S]*?)```/)?.[1];
  if (!chart) throw new Error('README.md has no mermaid drawing under "Folders, and which way the arrows run"');
  const boxes = new Map<string, string>();
  const arrows: Drawing['arrows'] = [];
  for (const raw of chart.split('\n').slice(1)) {
    // A box is declared where it is first drawn, `id["label"]` or `id(["label"])`; afterwards its id alone names it.
    const line = raw.replace(/(\w+)\(?\["([^"]+)"\]\)?/g, (_, id: string, label: string) => {
      boxes.set(id, label);
      return id;
    });
    if (line.trim() === '') continue;
    const parts = line.split(/\s*(-->|-\.[^.]*\.->)\s*/);
    for (let i = 1; i < parts.length; i += 2) {
      if (parts[i] !== '-->') continue;
      for (const from of parts[i - 1].split('&')) for (const to of parts[i + 1].split('&')) arrows.push({ from: from.trim(), to: to.trim() });
    }
  }
  for (const { from, to } of arrows) for (const id of [from, to]) if (!boxes.has(id)) throw new Error(`README.md's drawing draws an arrow from or to "${id}", a box it never labels`);
  return { boxes, arrows };
}

function codeFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    // What .gitignore keeps out (dependencies, builds, local data) is no code of ours.
    if (['node_modules', 'dist', 'cdk.out'].includes(entry) || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) codeFiles(path, out);
    else if (CODE.test(entry)) out.push(path);
  }
  return out;
}

/** `import ... from '...'` and `export ... from '...'` at the start of a line, so comments' examples are skipped. */
const STATIC_IMPORT = /^[ \t]*(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"\n]+)['"]/gm;
/** `import('...')` in code or in a type, and the fixed head of a template's (`import(\`#lambdas/functions/${fn}\`)`). */
const DYNAMIC_IMPORT = /\bimport\(\s*['"`]([^'"`$\n]+)(?:['"`]\s*\)|\$\{)/g;

const subpathImports = Object.entries(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).imports as Record<string, string>);

/** The file an import names, from the root; undefined for a package. */
function importedPath(file: string, specifier: string): string | undefined {
  let path: string | undefined;
  if (specifier.startsWith('.')) path = relative(root, resolve(dirname(file), specifier));
  else if (specifier.startsWith('#')) {
    for (const [pattern, target] of subpathImports) {
      const head = pattern.replace(/\*$/, '');
      if (specifier.startsWith(head)) path = target.replace('*', specifier.slice(head.length)).replace(/^\.\//, '');
    }
    if (path === undefined) throw new Error(`${relative(root, file)} imports ${specifier}, which package.json's "imports" does not map`);
  } else return undefined;
  // A relative import names a module without its extension; the box of core/ports.ts needs the file's own name.
  const named = ['', '.ts', '.tsx', '/index.ts'].map((ending) => path + ending).find((candidate) => existsSync(join(root, candidate)) && statSync(join(root, candidate)).isFile());
  return named ?? path;
}

describe("README.md's drawing of the folders' arrows", () => {
  const { boxes, arrows } = readDrawing(readme);
  /** The box a file is drawn in: the one naming the file itself, else the deepest folder holding it. */
  const boxOf = (path: string): string | undefined => {
    const depth = (label: string) => (label.endsWith('/') ? label.length : Infinity);
    const holding = [...boxes].filter(([, label]) => (label.endsWith('/') ? path.startsWith(label) : path === label));
    return holding.sort(([, a], [, b]) => depth(b) - depth(a))[0]?.[0];
  };
  const arrowName = (from: string, to: string) => `${boxes.get(from)} → ${boxes.get(to)}`;

  /** Every import from one box into another: the arrow, and the first file and import found to draw it. */
  const imported = new Map<string, { from: string; to: string; example: string }>();
  const topFolders = [...new Set([...boxes.values()].map((label) => label.split('/')[0]))];
  for (const folder of topFolders) {
    for (const file of codeFiles(join(root, folder))) {
      const source = readFileSync(file, 'utf8');
      const from = boxOf(relative(root, file));
      for (const match of [...source.matchAll(STATIC_IMPORT), ...source.matchAll(DYNAMIC_IMPORT)]) {
        const path = importedPath(file, match[1]);
        const to = path === undefined ? undefined : boxOf(path);
        if (!from || !to || from === to) continue;
        const key = `${from} ${to}`;
        if (!imported.has(key)) imported.set(key, { from, to, example: `${relative(root, file)} imports ${match[1]}` });
      }
    }
  }

  it('when it is read, every box names a folder or file that exists', () => {
    for (const label of boxes.values()) expect(existsSync(join(root, label)), `the drawing's box "${label}" names nothing in the repository`).toBe(true);
  });

  it('when a top-level folder holds code, the drawing draws it or it is one the drawing leaves out', () => {
    const drawn = new Set(topFolders);
    const folders = readdirSync(root).filter((entry) => !entry.startsWith('.') && entry !== 'node_modules' && statSync(join(root, entry)).isDirectory());
    for (const folder of folders) {
      if (codeFiles(join(root, folder)).length === 0) continue;
      expect(drawn.has(folder) || NOT_DRAWN.includes(folder), `${folder}/ holds code, but README.md's drawing neither draws it nor is it one of the folders it leaves out`).toBe(true);
    }
  });

  it('when the code imports from one drawn folder into another, the drawing has that arrow', () => {
    const drawn = new Set(arrows.map(({ from, to }) => `${from} ${to}`));
    const missing = [...imported.entries()].filter(([key]) => !drawn.has(key)).map(([, { from, to, example }]) => `${arrowName(from, to)} (${example})`);
    expect(missing, `the code has arrows README.md's drawing lacks:\n${missing.join('\n')}`).toEqual([]);
  });

  it('when the drawing has an arrow, the code imports that way', () => {
    const extra = arrows.filter(({ from, to }) => !imported.has(`${from} ${to}`)).map(({ from, to }) => arrowName(from, to));
    expect(extra, `README.md's drawing has arrows no import makes:\n${extra.join('\n')}`).toEqual([]);
  });
});
