// Router wiring -> router.ts: binds every operationId to its handler in a dispatch table typed by the
// operations' own input and result types (no casts), over the runtime router.
import type { StatementStructures } from 'ts-morph';
import type { GeneratedFile, Printer } from '../lib/ts.ts';
import { StructureKind, typeImport, valueImport } from '../lib/ts.ts';
import type { ApiModel } from '../model.ts';
import { propertyKey } from '../names.ts';
import { runtimeModule } from './runtime-module.ts';

export function transformRouter(model: ApiModel, printer: Printer): GeneratedFile {
  const statements: (StatementStructures | string)[] = [
    typeImport('node:http', ['IncomingMessage', 'ServerResponse']),
    valueImport(runtimeModule.router, ['createRouterFromRoutes']),
    typeImport(runtimeModule.router, ['ApiRouter', 'Dispatch', 'RequestContext', 'RouteDefinition']),
    typeImport('./operations.ts', ['HandlerTypes', 'OperationId']),
    valueImport('./operations.ts', ['routes']),
    typeImport('./handlers.ts', ['Handlers']),
    valueImport('./spec.ts', ['apiSpec']),
    {
      kind: StructureKind.Interface,
      name: 'ApiRouterOptions',
      isExported: true,
      typeParameters: [{ name: 'Ctx' }],
      properties: [
        { name: 'handlers', type: 'Handlers<Ctx>', docs: ['The implementation of every operation.'] },
        {
          name: 'context',
          type: '(req: IncomingMessage, res: ServerResponse, route: RouteDefinition<OperationId>) => Ctx | Promise<Ctx>',
          docs: ['Builds the handler context before the request is parsed and validated (authenticate here; throw to refuse).'],
        },
        { name: 'validateResponses', hasQuestionToken: true, type: 'boolean', docs: ['Validate every response against the document (default true).'] },
        { name: 'bodyLimit', hasQuestionToken: true, type: 'string', docs: ['Largest accepted request body (default `1mb`).'] },
      ],
    },
    {
      kind: StructureKind.Function,
      name: 'requestContext',
      isExported: true,
      docs: ['The default context: the request, the response and the matched route.'],
      parameters: [{ name: 'req', type: 'IncomingMessage' }, { name: 'res', type: 'ServerResponse' }, { name: 'route', type: 'RouteDefinition' }],
      returnType: 'RequestContext',
      statements: ['return { req, res, route };'],
    },
    {
      kind: StructureKind.Function,
      name: 'createApiRouter',
      isExported: true,
      typeParameters: [{ name: 'Ctx' }],
      docs: [
        'The router of every operation of the document: an Express middleware (mount it at the root, after routes it does not describe),',
        'or a Node request handler given a `next` (an unknown path reaches `next` as a 404 problem).',
      ],
      parameters: [{ name: 'options', type: 'ApiRouterOptions<Ctx>' }],
      returnType: 'ApiRouter',
      statements: (writer) => {
        writer.writeLine('const h = options.handlers;');
        writer.writeLine("// Each operation's handler by operationId, typed by its own input and result (validation has checked the input).");
        writer.write('const dispatch: Dispatch<HandlerTypes, Ctx> = {').indent(() => {
          for (const op of model.operations) {
            writer.writeLine(`${propertyKey(op.operationId)}: (input, context) => h.${op.group}.${op.operationId}(input, context),`);
          }
        });
        writer.write('};').newLine();
        writer.writeLine('return createRouterFromRoutes<HandlerTypes, Ctx>({ ...options, apiSpec, routes, dispatch });');
      },
    },
  ];
  return printer.file('router.ts', 'The Express router: routes, validation and dispatch to the handlers.', statements);
}
