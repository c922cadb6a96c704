// The generator: a pure function from an OpenAPI document to the files of generated/.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Printer, textFile, type GeneratedFile } from './lib/ts.ts';
import { readModel, type ApiModel, type JsonObject } from './model.ts';
import { generatorRoot } from './root.ts';
import { transformClient } from './transform/client.ts';
import { transformEnums } from './transform/enums.ts';
import { transformErrorCodes } from './transform/error-codes.ts';
import { transformMagicValues } from './transform/magic-values.ts';
import { transformOperations } from './transform/operation-object.ts';
import { transformRouter } from './transform/router.ts';
import { transformStateMachines } from './transform/state-machines.ts';
import { transformTags } from './transform/tag-object.ts';
import { startTypes, type TypesJob } from './transform/types.ts';
import { transformWebhooks } from './transform/webhooks-object.ts';

const templates = path.join(generatorRoot, 'templates');
const RUNTIME = ['router-runtime.ts', 'router-types.ts', 'route-match.ts', 'request-body.ts', 'operation-checks.ts', 'response-writer.ts', 'router-problems.ts', 'http-io.ts', 'openapi-validation.ts', 'media-types.ts', 'client-runtime.ts', 'webhook-signature.ts', 'number-texts.ts'] as const;

function specModule(printer: Printer): GeneratedFile {
  return printer.file('spec.ts', 'The bundled document, as the router validates against it.', [
    `import { readFileSync } from 'node:fs';`,
    `/** The bundled OpenAPI document (generated/openapi.json), read once. */
export const apiSpec: Record<string, unknown> = JSON.parse(readFileSync(new URL('./openapi.json', import.meta.url), 'utf8')) as Record<string, unknown>;`,
  ]);
}

/** The optional modules (each generated only when the document holds its data) that index.ts re-exports. */
interface Optional { enums: boolean; stateMachines: boolean; magicValues: boolean; errorCodes: boolean }

function indexModule(printer: Printer, has: Optional): GeneratedFile {
  return printer.file('index.ts', 'Everything generated, from one module.', [
    `export type * from './types.ts';`,
    `export * from './operations.ts';`,
    `export type * from './handlers.ts';`,
    `export * from './router.ts';`,
    `export * from './client.ts';`,
    `export * from './webhooks.ts';`,
    ...(has.enums ? [`export * from './enums.ts';`] : []),
    ...(has.stateMachines ? [`export * from './state-machines.ts';`] : []),
    ...(has.magicValues ? [`export * from './magic-values.ts';`] : []),
    ...(has.errorCodes ? [`export * from './error-codes.ts';`] : []),
    `export { apiSpec } from './spec.ts';`,
    `export { routerProblem, webhookEventProblems, matchedRoute, respondJson, isUnknownPath, MissingHandlersError, missingHandlers, type ApiRouter, type NextFunction, type RouterProblem, type RequestContext, type RouteDefinition, type OperationInput, type OperationResult } from './runtime/router-runtime.ts';`,
    `export { requestPath, requestQuery } from './runtime/http-io.ts';`,
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
    transformWebhooks(model, printer),
    ...(enums ? [enums] : []),
    ...(stateMachines ? [stateMachines] : []),
    ...(magicValues ? [magicValues] : []),
    ...(errorCodes ? [errorCodes] : []),
    specModule(printer),
    indexModule(printer, { enums: enums !== undefined, stateMachines: stateMachines !== undefined, magicValues: magicValues !== undefined, errorCodes: errorCodes !== undefined }),
    ...RUNTIME.map((name) => textFile(`runtime/${name}`, readFileSync(path.join(templates, name), 'utf8'))),
  ];
  files.push(await typesFile);
  files.sort((a, b) => a.path.localeCompare(b.path));
  return files;
}
