// The whole document -> types.ts: the paths / operations / components / webhooks types of openapi-typescript.
import openapiTS, { astToString } from 'openapi-typescript';
import { textFile, type GeneratedFile } from '../lib/ts.ts';
import type { JsonObject } from '../model.ts';

export async function transformTypes(doc: JsonObject): Promise<GeneratedFile> {
  // openapi-typescript validates and may annotate the document it is given: it gets its own copy.
  // defaultNonNullable off: a request field with a default may be left out (the server fills it); response
  // schemas list what they always carry as required, so those stay present.
  const ast = await openapiTS(structuredClone(doc) as unknown as Parameters<typeof openapiTS>[0], { silent: true, defaultNonNullable: false });
  return textFile('types.ts', `// Types of every path, operation, component and webhook (openapi-typescript).\n${astToString(ast)}`);
}
