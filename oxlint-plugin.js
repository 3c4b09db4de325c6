/**
 * The project's own oxlint rules (a JS plugin, .oxlintrc.json "jsPlugins"):
 *
 * - `no-relative-import-across`: a relative import stays inside its top-level folder; another
 *   folder's module is imported by its subpath import, `#<folder>/<path>` (package.json
 *   "imports"), so `../../../shared/messages` is written `#shared/messages` wherever it is
 *   imported from. The top-level folders are this file's folder's children (web/ is one
 *   folder: web/src/ importing web/scripts/ stays relative).
 * - `no-aws-client-outside-clients`: `new <X>Client(...)` of an AWS SDK client is written in
 *   adapters/clients.ts alone (.oxlintrc.json says where else it may be).
 *
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

/** An AWS SDK client's class: `S3Client`, `DynamoDBDocumentClient`; not a command or anything else of the SDK. */
const SDK_CLIENT = /Client$/;

const noAwsClientOutsideClients = {
  meta: {
    type: 'problem',
    docs: { description: 'Every AWS SDK client of the service is made in adapters/clients.ts, with its call budget, its endpoints and its dependency named on its errors.' },
    messages: {
      elsewhere:
        "'new {{name}}(...)' makes an AWS SDK client outside adapters/clients.ts: take it from a factory there (createTableClient, createS3Client, createLambdaClient...), which gives it the call budget, the local stack's endpoints and its dependency's name on its errors.",
    },
    schema: [],
  },
  create(context) {
    /** Local names of the SDK's client classes, and of whole SDK modules (`import * as lambda`). */
    const classes = new Set();
    const modules = new Set();
    const made = [];
    return {
      ImportDeclaration(node) {
        if (node.importKind === 'type' || typeof node.source.value !== 'string' || !node.source.value.startsWith('@aws-sdk/')) return;
        for (const specifier of node.specifiers) {
          if (specifier.type === 'ImportNamespaceSpecifier') modules.add(specifier.local.name);
          else if (specifier.type === 'ImportSpecifier' && specifier.importKind !== 'type' && SDK_CLIENT.test(specifier.imported.name ?? specifier.imported.value)) classes.add(specifier.local.name);
        }
      },
      NewExpression: (node) => made.push(node),
      // An import may follow the code that uses it: the names are known once the whole file is read.
      'Program:exit'() {
        for (const node of made) {
          const { callee } = node;
          const name =
            callee.type === 'Identifier' && classes.has(callee.name)
              ? callee.name
              : callee.type === 'MemberExpression' && !callee.computed && callee.object.type === 'Identifier' && modules.has(callee.object.name) && SDK_CLIENT.test(callee.property.name)
                ? `${callee.object.name}.${callee.property.name}`
                : undefined;
          if (name) context.report({ node, messageId: 'elsewhere', data: { name } });
        }
      },
    };
  },
};

export default {
  meta: { name: 'folders' },
  rules: { 'no-relative-import-across': noRelativeImportAcross, 'no-aws-client-outside-clients': noAwsClientOutsideClients },
};
