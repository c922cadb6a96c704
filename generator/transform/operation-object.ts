// Operation objects -> operations.ts: each operation's handler input and result types, the operationIds, and
// the route table.
import type { StatementStructures, WriterFunction } from 'ts-morph';
import type { GeneratedFile, Printer } from '../lib/ts.ts';
import { StructureKind, VariableDeclarationKind, typeImport } from '../lib/ts.ts';
import type { ApiModel, OperationModel, ResponseModel } from '../model.ts';
import { docText, expressParamName, literal, propertyKey } from '../names.ts';
import { runtimeModule } from './runtime-module.ts';

const EMPTY = 'Record<string, never>';

/**
 * `paths['/customers']['post']` followed by index keys: the operation's type by its path and method, which
 * openapi-typescript writes whether or not the operation has an operationId (it names `operations[id]` there).
 */
const opType = (op: OperationModel, ...keys: (string | number)[]): string =>
  `paths[${literal(op.path)}][${literal(op.method)}]${keys.map((k) => `[${typeof k === 'number' ? String(k) : literal(k)}]`).join('')}`;

function parameterSection(op: OperationModel, location: 'path' | 'query'): string {
  const params = op.parameters.filter((p) => p.in === location);
  if (params.length === 0) return EMPTY;
  const section = opType(op, 'parameters', location);
  return params.some((p) => p.required) ? section : `NonNullable<${section}>`;
}

/** Headers arrive lower-cased; each maps to the type of the parameter as the document names it. */
function headerSection(op: OperationModel): string {
  const params = op.parameters.filter((p) => p.in === 'header');
  if (params.length === 0) return EMPTY;
  const section = `NonNullable<${opType(op, 'parameters', 'header')}>`;
  const members = params.map((p) => `${propertyKey(p.name.toLowerCase())}${p.required ? '' : '?'}: ${section}[${literal(p.name)}];`);
  return `{ ${members.join(' ')} }`;
}

function bodySection(op: OperationModel): string {
  const body = op.requestBody;
  if (!body || body.mediaTypes.length === 0) return 'undefined';
  const base = body.required ? opType(op, 'requestBody') : `NonNullable<${opType(op, 'requestBody')}>`;
  const types = body.mediaTypes.map((m) => `${base}[${literal('content')}][${literal(m)}]`);
  return [...types, ...(body.required ? [] : ['undefined'])].join(' | ');
}

const statusType = (status: string): string => (/^[1-5][0-9][0-9]$/.test(status) ? status : 'number');
const statusKey = (status: string): string | number => (/^[0-9]+$/.test(status) ? Number(status) : status);

function resultMembers(op: OperationModel, response: ResponseModel): string[] {
  const status = `status: ${statusType(response.status)};`;
  const headers = 'headers?: Record<string, string>;';
  if (response.mediaTypes.length === 0) return [`{ ${status} body?: undefined; ${headers} }`];
  const several = response.mediaTypes.length > 1;
  return response.mediaTypes.map((media) => {
    const body = opType(op, 'responses', statusKey(response.status), 'content', media);
    const contentType = `contentType${several ? '' : '?'}: ${literal(media)};`;
    return `{ ${status} ${contentType} body: ${body}; ${headers} }`;
  });
}

export function operationDoc(op: OperationModel): string {
  const lines = [op.summary, op.description, `\`${op.method.toUpperCase()} ${op.path}\``].filter((l): l is string => !!l);
  return docText(lines.join('\n\n')) + (op.deprecated ? '\n@deprecated' : '');
}

function routeLiteral(op: OperationModel): WriterFunction {
  return (writer) => {
    const pathParams = op.parameters
      .filter((p) => p.in === 'path')
      .map((p) => `{ name: ${literal(p.name)}, expressName: ${literal(expressParamName(p.name))} }`);
    const headerParams = op.parameters.filter((p) => p.in === 'header').map((p) => literal(p.name.toLowerCase()));
    writer.write('{').indent(() => {
      writer.writeLine(`operationId: ${literal(op.operationId)},`);
      if (op.documentOperationId !== op.operationId) writer.writeLine(`documentOperationId: ${op.documentOperationId === undefined ? 'null' : literal(op.documentOperationId)},`);
      writer.writeLine(`group: ${literal(op.group)},`);
      writer.writeLine(`method: ${literal(op.method)},`);
      writer.writeLine(`path: ${literal(op.path)},`);
      writer.writeLine(`pathParams: [${pathParams.join(', ')}],`);
      writer.writeLine(`headerParams: [${headerParams.join(', ')}],`);
      writer.writeLine(`requestContentTypes: [${(op.requestBody?.mediaTypes ?? []).map(literal).join(', ')}],`);
      writer.writeLine(`security: [${op.security.map((r) => `[${r.map(literal).join(', ')}]`).join(', ')}],`);
    });
    writer.write('}');
  };
}

/**
 * The operations by operationId: `OperationId` as a value (`OperationId.getCustomer`, so a misspelt name does
 * not compile and a rename is found) and as the union of every operationId, and `HandlerTypes`, each
 * operation's handler input and result, over which the router's dispatch table is typed.
 */
function operationIndex(model: ApiModel): StatementStructures[] {
  return [
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: ['Every operationId of the document, each by its own name: `OperationId.getCustomer`.'],
      declarations: [
        {
          name: 'OperationId',
          initializer: (writer) => {
            writer.write('{').indent(() => {
              for (const op of model.operations) writer.writeLine(`${propertyKey(op.operationId)}: ${literal(op.operationId)},`);
            });
            writer.write('} as const');
          },
        },
      ],
    },
    {
      kind: StructureKind.TypeAlias,
      name: 'OperationId',
      isExported: true,
      docs: ['The operationId of an operation of the document.'],
      type: '(typeof OperationId)[keyof typeof OperationId]',
    },
    {
      kind: StructureKind.Interface,
      name: 'HandlerTypes',
      isExported: true,
      docs: ['Each operation\'s handler input and result, by operationId.'],
      properties: model.operations.map((op) => ({
        name: propertyKey(op.operationId),
        type: `{ input: ${op.typeName}Input; result: ${op.typeName}Result }`,
      })),
    },
  ];
}

export function transformOperations(model: ApiModel, printer: Printer): GeneratedFile {
  const statements: (StatementStructures | string)[] = [
    typeImport('./types.ts', ['paths']),
    typeImport(runtimeModule.routerTypes, [...(model.operations.some((op) => op.responses.length === 0) ? ['OperationResult'] : []), 'RouteDefinition']),
  ];
  for (const op of model.operations) {
    statements.push({
      kind: StructureKind.Interface,
      name: `${op.typeName}Input`,
      isExported: true,
      docs: [`What the \`${op.operationId}\` handler receives (validated against the document).`],
      properties: [
        { name: 'path', type: parameterSection(op, 'path') },
        { name: 'query', type: parameterSection(op, 'query') },
        { name: 'headers', type: headerSection(op) },
        { name: 'body', type: bodySection(op) },
      ],
    });
    statements.push({
      kind: StructureKind.TypeAlias,
      name: `${op.typeName}Result`,
      isExported: true,
      docs: [`What the \`${op.operationId}\` handler may answer: each status the document allows, with its body.`],
      type: (writer) => {
        // No documented response: any status and body (what the document leaves open, the handler decides).
        if (op.responses.length === 0) writer.write('OperationResult');
        for (const member of op.responses.flatMap((r) => resultMembers(op, r))) writer.newLine().write(`| ${member}`);
      },
    });
  }
  statements.push(...operationIndex(model));
  // Each route goes through route(), so that the table's element type is RouteDefinition itself: a bare array
  // literal's type is the union of its elements' literal types, which tsc refuses past a thousand or so
  // ("union type that is too complex", GitHub's 1,223 operations).
  statements.push('const route = (definition: RouteDefinition<OperationId>): RouteDefinition<OperationId> => definition;');
  statements.push({
    kind: StructureKind.VariableStatement,
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['Every operation of the document, as the router binds it.'],
    declarations: [
      {
        name: 'routes',
        type: 'readonly RouteDefinition<OperationId>[]',
        initializer: (writer) => {
          writer.write('[').indent(() => {
            for (const op of model.operations) {
              writer.write('route(');
              routeLiteral(op)(writer);
              writer.write('),').newLine();
            }
          });
          writer.write(']');
        },
      },
    ],
  });
  return printer.file('operations.ts', 'Handler input and result types of every operation, the operationIds, and the route table.', statements);
}
