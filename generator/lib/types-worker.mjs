// A worker thread that turns a document into types.ts text with openapi-typescript (plain JavaScript, so that
// it starts the same under tsx, vitest and the compiled generator). It loads openapi-typescript, and the
// TypeScript it prints with, as soon as it starts: while the main thread bundles the document.
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';

// The CommonJS build, by require: importing it as ESM would run cjs-module-lexer over TypeScript's 9 MB.
const { default: openapiTS, astToString } = createRequire(import.meta.url)('openapi-typescript');

parentPort.once('message', async (doc) => {
  try {
    // defaultNonNullable off: a request field with a default may be left out (the server fills it); response
    // schemas list what they always carry as required, so those stay present.
    const ast = await openapiTS(doc, { silent: true, defaultNonNullable: false });
    parentPort.postMessage({ text: astToString(ast) });
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
