// Router wiring -> router.ts: binds every operationId to its handler, type-checked, over the runtime router.
import { StructureKind, type StatementStructures } from 'ts-morph';
import type { GeneratedFile, Printer } from '../lib/ts.ts';
import { typeImport, valueImport } from '../lib/ts.ts';
import type { ApiModel } from '../model.ts';
import { literal } from '../names.ts';

export function transformRouter(model: ApiModel, printer: Printer): GeneratedFile {
  const statements: (StatementStructures | string)[] = [
    typeImport('node:http', ['IncomingMessage', 'ServerResponse']),
    valueImport('./runtime/router-runtime.ts', ['createRouterFromRoutes']),
    typeImport('./runtime/router-runtime.ts', ['ApiRouter', 'OperationInput', 'OperationResult', 'RequestContext', 'RouteDefinition']),
    { kind: StructureKind.ImportDeclaration, isTypeOnly: true, moduleSpecifier: './operations.ts', namespaceImport: 'op' },
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
          type: '(req: IncomingMessage, res: ServerResponse, route: RouteDefinition) => Ctx | Promise<Ctx>',
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
        writer.writeLine('// Validation has checked each input against its operation before the handler sees it.');
        writer.write('const dispatch = (operationId: string, input: OperationInput, context: Ctx): Promise<OperationResult> =>').indent(() => {
          writer.write('{').newLine();
          writer.indent(() => {
            writer.write('switch (operationId) {').newLine();
            writer.indent(() => {
              for (const op of model.operations) {
                writer.writeLine(
                  `case ${literal(op.operationId)}: return h.${op.group}.${op.operationId}(input as unknown as op.${op.typeName}Input, context);`,
                );
              }
              writer.writeLine('default: return Promise.reject(new Error(`no operation ${operationId}`));');
            });
            writer.write('}').newLine();
          });
          writer.write('};').newLine();
        });
        writer.writeLine('return createRouterFromRoutes({ ...options, apiSpec, routes, dispatch });');
      },
    },
  ];
  return printer.file('router.ts', 'The Express router: routes, validation and dispatch to the handlers.', statements);
}
