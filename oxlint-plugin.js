/**
 * The project's own oxlint rule (a JS plugin, .oxlintrc.json "jsPlugins"): a relative import stays
 * inside its top-level folder; another folder's module is imported by its subpath import,
 * `#<folder>/<path>` (package.json "imports"), so `../../../shared/messages` is written
 * `#shared/messages` wherever it is imported from. The top-level folders are this file's
 * folder's children (web/ is one folder: web/src/ importing web/scripts/ stays relative).
 * Plain JavaScript: oxlint loads it with Node, which runs no TypeScript before Node 22.
 */
import { existsSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const VI_CALLS = new Set(['mock', 'doMock', 'unmock', 'doUnmock', 'importActual', 'importMock']);

/** The path from the root, as folders; undefined outside the root. */
function fromRoot(path) {
  const parts = relative(root, path).split(sep);
  return parts[0] === '..' || parts[0] === '' ? undefined : parts;
}

const noRelativeImportAcross = {
  meta: {
    type: 'problem',
    docs: { description: 'A relative import stays inside its top-level folder; another folder is reached by its `#folder/` subpath import.' },
    messages: {
      across: "'{{source}}' leaves {{folder}}/: import another folder's module by its subpath import, '{{subpath}}' (package.json \"imports\"); a relative import stays inside its own top-level folder.",
    },
    schema: [],
  },
  create(context) {
    const file = fromRoot(context.filename);
    // A file at the root (vitest.config.ts) is in no folder.
    if (!file || file.length < 2) return {};
    const folder = file[0];
    const here = dirname(resolve(root, ...file));

    /** `source` is the specifier's static text; `dynamic` when a template's expressions follow it. */
    const check = (node, source, dynamic) => {
      if (!source.startsWith('../') && !source.startsWith('./')) return;
      const target = fromRoot(resolve(here, source));
      if (target?.[0] === folder) return;
      let rest = target?.join('/');
      if (rest && dynamic && source.endsWith('/')) rest += '/';
      // The map adds `.ts`: a folder's index module is named with its `/index`.
      else if (rest && !dynamic && !existsSync(resolve(root, `${rest}.ts`)) && existsSync(resolve(root, rest, 'index.ts'))) rest += '/index';
      context.report({ node, messageId: 'across', data: { source: dynamic ? `${source}\${…}` : source, folder, subpath: rest ? `#${rest}${dynamic ? '${…}' : ''}` : '#<folder>/…' } });
    };
    const specifier = (node) => {
      if (node?.type === 'Literal' && typeof node.value === 'string') check(node, node.value, false);
      else if (node?.type === 'TemplateLiteral') check(node, node.quasis[0].value.cooked ?? '', node.expressions.length > 0);
      else if (node?.type === 'TSLiteralType') specifier(node.literal);
    };

    return {
      ImportDeclaration: (node) => specifier(node.source),
      ExportNamedDeclaration: (node) => specifier(node.source),
      ExportAllDeclaration: (node) => specifier(node.source),
      ImportExpression: (node) => specifier(node.source),
      TSImportType: (node) => specifier(node.source ?? node.argument),
      CallExpression(node) {
        const callee = node.callee;
        if (callee.type === 'MemberExpression' && !callee.computed && callee.object.type === 'Identifier' && callee.object.name === 'vi' && VI_CALLS.has(callee.property.name)) {
          specifier(node.arguments[0]);
        }
      },
    };
  },
};

export default {
  meta: { name: 'folders' },
  rules: { 'no-relative-import-across': noRelativeImportAcross },
};
