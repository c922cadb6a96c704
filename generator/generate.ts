// The generator: a pure function from an OpenAPI document to the files of generated/.
import { Printer, textFile, type GeneratedFile } from './lib/ts.ts';
import { readModel, type ApiModel, type JsonObject } from './model.ts';
import { transformClient } from './transform/client.ts';
import { transformEnums } from './transform/enums.ts';
import { transformErrorCodes } from './transform/error-codes.ts';
import { transformMagicValues } from './transform/magic-values.ts';
import { transformOperations } from './transform/operation-object.ts';
import { transformRouter } from './transform/router.ts';
import { transformStateMachines } from './transform/state-machines.ts';
import { transformTags } from './transform/tag-object.ts';
import { startTypes, type TypesJob } from './transform/types.ts';
import { runtimeModule } from './transform/runtime-module.ts';
import { transformWebhooks } from './transform/webhooks-object.ts';


function specModule(printer: Printer): GeneratedFile {
  return printer.file('spec.ts', 'The bundled document, as the router validates against it.', [
    `import { readFileSync } from 'node:fs';`,
    `/** The bundled OpenAPI document (openapi.json beside this module), read once. */
export const apiSpec: Record<string, unknown> = JSON.parse(readFileSync(new URL('./openapi.json', import.meta.url), 'utf8')) as Record<string, unknown>;`,
  ]);
}

/** The optional modules (each generated only when the document holds its data) that index.ts re-exports. */
interface Optional { enums: boolean; stateMachines: boolean; magicValues: boolean; errorCodes: boolean }

function indexModule(printer: Printer, has: Optional): GeneratedFile {
  // The client's entry: nothing here loads the router (express, ajv), so a client install needs only openapi-fetch.
  return printer.file('index.ts', 'The typed client, the types, the webhook events and the contract\'s tables: everything a client uses.', [
    `export type * from './types.ts';`,
    `export * from './operations.ts';`,
    `export * from './client.ts';`,
    `export * from './webhooks.ts';`,
    ...(has.enums ? [`export * from './enums.ts';`] : []),
    ...(has.stateMachines ? [`export * from './state-machines.ts';`] : []),
    ...(has.magicValues ? [`export * from './magic-values.ts';`] : []),
    ...(has.errorCodes ? [`export * from './error-codes.ts';`] : []),
  ]);
}

function serverModule(printer: Printer): GeneratedFile {
  return printer.file('server.ts', 'Everything generated: what a client uses, and the handler interfaces, the router and the document a server uses.', [
    `export * from './index.ts';`,
    `export type * from './handlers.ts';`,
    `export * from './router.ts';`,
    `export { apiSpec } from './spec.ts';`,
    `export { routerProblem, webhookEventProblems, matchedRoute, respondJson, isUnknownPath, MissingHandlersError, missingHandlers, requestPath, requestQuery, type ApiRouter, type NextFunction, type RouterProblem, type RequestContext, type RouteDefinition, type OperationInput, type OperationResult } from '${runtimeModule.router}';`,
  ]);
}

export interface Generation {
  readonly model: ApiModel;
  /** Every file of the output folder, sorted by path. */
  readonly files: readonly GeneratedFile[];
}

/**
 * `types`: a types job started before the document was read (the CLI starts it first, so that openapi-typescript
 * loads while the document is bundled); one is started here otherwise.
 */
export async function generate(doc: JsonObject, types: TypesJob = startTypes()): Promise<Generation> {
  let model: ApiModel;
  try {
    model = readModel(doc);
  } catch (error) {
    types.cancel();
    throw error;
  }
  // openapi-typescript works in its worker on its own copy while the other transforms run here.
  const typesFile = types.run(doc);
  try {
    return { model, files: await withTypes(doc, model, typesFile) };
  } catch (error) {
    types.cancel();
    throw error;
  }
}

/** Every file of the output folder, sorted by path: the transforms' own, then types.ts when it comes. */
async function withTypes(doc: JsonObject, model: ApiModel, typesFile: Promise<GeneratedFile>): Promise<GeneratedFile[]> {
  const printer = new Printer();
  const enums = transformEnums(doc, printer);
  const stateMachines = transformStateMachines(doc, printer);
  const magicValues = transformMagicValues(doc, printer);
  const errorCodes = transformErrorCodes(doc, printer);
  const files: GeneratedFile[] = [
    textFile('openapi.json', `${JSON.stringify(doc, null, 2)}\n`),
    transformOperations(model, printer),
    transformTags(model, printer),
    transformRouter(model, printer),
    transformClient(model, printer),
    transformWebhooks(model, doc, printer),
    ...(enums ? [enums] : []),
    ...(stateMachines ? [stateMachines] : []),
    ...(magicValues ? [magicValues] : []),
    ...(errorCodes ? [errorCodes] : []),
    specModule(printer),
    indexModule(printer, { enums: enums !== undefined, stateMachines: stateMachines !== undefined, magicValues: magicValues !== undefined, errorCodes: errorCodes !== undefined }),
    serverModule(printer),
  ];
  files.push(await typesFile);
  files.sort((a, b) => a.path.localeCompare(b.path));
  return files;
}
