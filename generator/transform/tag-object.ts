// Tags -> handlers.ts: one handler interface per tag, one method per operation, and the Handlers map.
import type { StatementStructures } from 'ts-morph';
import type { GeneratedFile, Printer } from '../lib/ts.ts';
import { StructureKind, typeImport } from '../lib/ts.ts';
import type { ApiModel } from '../model.ts';
import { docText, literal } from '../names.ts';
import { runtimeModule } from './runtime-module.ts';
import { operationDoc } from './operation-object.ts';

export function transformTags(model: ApiModel, printer: Printer): GeneratedFile {
  const statements: StatementStructures[] = [
    typeImport(runtimeModule.routerTypes, ['RequestContext']),
    { kind: StructureKind.ImportDeclaration, isTypeOnly: true, moduleSpecifier: './operations.ts', namespaceImport: 'op' },
  ];
  for (const tag of model.tags) {
    statements.push({
      kind: StructureKind.Interface,
      name: tag.interfaceName,
      isExported: true,
      typeParameters: [{ name: 'Ctx', default: 'RequestContext' }],
      docs: [docText(`The operations tagged "${tag.name}".${tag.description ? `\n\n${tag.description}` : ''}`)],
      methods: tag.operations.map((op) => ({
        // `new(…)` in an interface would declare a construct signature, not a method called new.
        name: op.operationId === 'new' ? literal(op.operationId) : op.operationId,
        docs: [operationDoc(op)],
        parameters: [
          { name: 'input', type: `op.${op.typeName}Input` },
          { name: 'context', type: 'Ctx' },
        ],
        returnType: `Promise<op.${op.typeName}Result>`,
      })),
    });
  }
  statements.push({
    kind: StructureKind.Interface,
    name: 'Handlers',
    isExported: true,
    typeParameters: [{ name: 'Ctx', default: 'RequestContext' }],
    docs: ['Every handler group: an implementation of the whole document.'],
    properties: model.tags.map((tag) => ({ name: tag.group, type: `${tag.interfaceName}<Ctx>`, docs: [`The "${tag.name}" operations.`] })),
  });
  return printer.file('handlers.ts', 'Handler interfaces: implement each one and end the module with `satisfies <Tag>Handlers<Ctx>`.', statements);
}
