// A worker thread that turns a document into types.ts text with openapi-typescript (plain JavaScript, so that
// it starts the same under tsx, vitest and the compiled generator). It loads openapi-typescript, and the
// TypeScript it prints with, as soon as it starts: while the main thread reads and bundles the document.
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';

// The CommonJS build, by require: importing it as ESM would run cjs-module-lexer over TypeScript's 9 MB.
const { default: openapiTS, astToString } = createRequire(import.meta.url)('openapi-typescript');

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

// defaultNonNullable off: a request field with a default may be left out (the server fills it); response
// schemas list what they always carry as required, so those stay present.
const OPTIONS = { silent: true, defaultNonNullable: false };

/** A local reference followed (callbacks and their path items may be references). */
function resolve(doc, node) {
  let current = node;
  for (let i = 0; i < 32 && isObject(current) && typeof current.$ref === 'string' && current.$ref.startsWith('#/'); i++) {
    current = current.$ref.slice(2).split('/').map((p) => decodeURIComponent(p).replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce((at, key) => (isObject(at) ? at[key] : undefined), doc);
  }
  return current;
}

/** Every callback of every operation: [path, method, callback name, URL expression, path item]. */
function callbacksOf(doc) {
  const found = [];
  for (const [path, rawItem] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const item = resolve(doc, rawItem);
    for (const method of METHODS) {
      const op = isObject(item) ? item[method] : undefined;
      const callbacks = isObject(op) ? resolve(doc, op.callbacks) : undefined;
      if (!isObject(callbacks)) continue;
      for (const [name, rawCallback] of Object.entries(callbacks)) {
        const callback = resolve(doc, rawCallback);
        if (isObject(callback)) for (const [expression, pathItem] of Object.entries(callback)) found.push([path, method, name, expression, pathItem]);
      }
    }
  }
  return found;
}

/**
 * openapi-typescript leaves callbacks out. Their path items are converted as the webhooks of a second document
 * (the same paths and components, so references resolve), and `callbacks` indexes them by path, method,
 * callback name and URL expression, beside `paths`.
 */
async function callbackTypes(doc) {
  const found = callbacksOf(doc);
  if (found.length === 0) return '';
  const keys = found.map(([path, method, name, expression]) => JSON.stringify([path, method, name, expression]));
  // Without their operationIds, which would make openapi-typescript name them in the second document's
  // `operations` (not types.ts's) instead of writing them in place.
  const inPlace = (pathItem) => {
    const item = resolve(doc, pathItem);
    if (!isObject(item)) return item;
    return Object.fromEntries(Object.entries(item).map(([key, value]) => {
      if (!METHODS.includes(key) || !isObject(value)) return [key, value];
      const operation = { ...value };
      delete operation.operationId;
      return [key, operation];
    }));
  };
  const webhooks = Object.fromEntries(found.map((entry, i) => [keys[i], inPlace(entry[4])]));
  const nodes = await openapiTS({ ...doc, openapi: '3.1.0', webhooks }, OPTIONS);
  const items = nodes.find((node) => node.name?.escapedText === 'webhooks');
  if (items === undefined) throw new Error('openapi-typescript wrote no types for the callbacks');
  const tree = {};
  found.forEach(([path, method, name, expression], i) => {
    ((((tree[path] ??= {})[method] ??= {})[name] ??= {})[expression] = `callbackItems[${JSON.stringify(keys[i])}]`);
  });
  const print = (node, indent) => Object.entries(node).map(([key, value]) => (typeof value === 'string'
    ? `${indent}${JSON.stringify(key)}: ${value};`
    : `${indent}${JSON.stringify(key)}: {\n${print(value, `${indent}    `)}\n${indent}};`)).join('\n');
  return `${astToString(items).replace(/^export interface webhooks\b/m, 'interface callbackItems')}` +
    '/** The callbacks of each operation, by path and method as in `paths`, then callback name and URL expression. */\n' +
    `export interface callbacks {\n${print(tree, '    ')}\n}\n`;
}

/** types.ts's text: the document's types, then its callbacks'. */
const typesOf = async (doc) => astToString(await openapiTS(doc, OPTIONS)) + await callbackTypes(doc);

/** `{ doc }`: its types.ts text (`{ text }`), or `{ error }`. */
parentPort.once('message', async ({ doc }) => {
  try {
    parentPort.postMessage({ text: await typesOf(doc) });
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
