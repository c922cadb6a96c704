// The scaffold step, for a handler folder as it is laid out: finds where each group is implemented (any
// module of the folder exporting `<group>Handlers`), writes a starting module only for a group implemented
// nowhere, and for a group that lacks operations prints the stubs to add and where. Never edits a file.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Node, Project, SyntaxKind, type ObjectLiteralExpression } from 'ts-morph';
import type { ApiModel, OperationModel, TagModel } from './model.ts';
import { kebabCase } from './names.ts';

export interface ScaffoldOptions {
  /** Folder of the hand-written handler modules. */
  readonly dir: string;
  /** The generated folder, to import the handler types from. */
  readonly generatedDir: string;
  /** The package name the generated folder is imported by, when it is a package (`@pgw/client`): then the
   * modules import `<name>/handlers`, not a relative path. */
  readonly generatedPackage?: string | undefined;
  /** The handler context type and the module that exports it; default the router's RequestContext. */
  readonly context?: { readonly name: string; readonly from: string } | undefined;
}

/** What the scaffold step did or asks for. */
export interface ScaffoldReport {
  /** Modules written for groups implemented nowhere in the folder. */
  readonly written: string[];
  /** Operations of groups implemented in the folder whose module lacks them: the stubs to add, and where. */
  readonly missing: { readonly file: string; readonly group: string; readonly operations: readonly string[]; readonly stubs: string }[];
}

const importPath = (from: string, to: string): string => {
  const relative = path.relative(from, to).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
};

function stubs(operations: readonly OperationModel[], contextName: string): string {
  return operations.map(
    (op) => `  // ${op.method.toUpperCase()} ${op.path} (input: op.${op.typeName}Input, context: ${contextName})${op.deprecated ? '\n  // eslint-disable-next-line @typescript-eslint/no-deprecated -- deprecated in the document, still served' : ''}
  ${op.operationId}(): Promise<op.${op.typeName}Result> {
    return Promise.reject(new Error('${op.operationId}: this handler is still to be written'));
  },`,
  ).join('\n');
}

function moduleText(tag: TagModel, options: ScaffoldOptions): string {
  const generated = options.generatedPackage ?? importPath(options.dir, options.generatedDir);
  const ext = options.generatedPackage === undefined ? '.ts' : '';
  const context = options.context;
  const contextImport = context ? `import type { ${context.name} } from '${importPath(options.dir, context.from)}';\n` : '';
  const satisfies = context ? `${tag.interfaceName}<${context.name}>` : tag.interfaceName;
  return `// Handlers of the "${tag.name}" operations. Written once by \`npm run generate\` as a starting point; yours to edit.
// (The generator never overwrites this file. Remove this note once the handlers are written.)
import type { ${tag.interfaceName} } from '${generated}/handlers${ext}';
import type * as op from '${generated}/operations${ext}';
${contextImport}
export const ${tag.group}Handlers = {
${stubs(tag.operations, context?.name ?? 'RequestContext')}
} satisfies ${satisfies};
`;
}

/** The object literal a module exports as `<group>Handlers` (through `satisfies`, `as` or parentheses). */
function handlerObject(initializer: Node | undefined): ObjectLiteralExpression | undefined {
  let node = initializer;
  while (node && (Node.isSatisfiesExpression(node) || Node.isAsExpression(node) || Node.isParenthesizedExpression(node))) node = node.getExpression();
  return node && Node.isObjectLiteralExpression(node) ? node : undefined;
}

/** Where each `<group>Handlers` of the folder is declared, with the member names it has (spreads of other
 * objects declared in the folder, such as `...invoiceSettingsHandlers`, included). */
function implemented(dir: string): Map<string, { file: string; members: Set<string> }> {
  const found = new Map<string, { file: string; members: Set<string> }>();
  if (!existsSync(dir)) return found;
  const project = new Project({ skipAddingFilesFromTsConfig: true, skipFileDependencyResolution: true });
  const objects = new Map<string, { file: string; object: ObjectLiteralExpression }>();
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).sort()) {
    const source = project.addSourceFileAtPath(path.join(dir, name));
    for (const declaration of source.getDescendantsOfKind(SyntaxKind.VariableDeclaration)) {
      const object = handlerObject(declaration.getInitializer());
      if (object && !objects.has(declaration.getName())) objects.set(declaration.getName(), { file: source.getFilePath(), object });
    }
  }
  const membersOf = (object: ObjectLiteralExpression, seen: Set<ObjectLiteralExpression>): string[] => {
    if (seen.has(object)) return [];
    seen.add(object);
    return object.getProperties().flatMap((p) => {
      if (!p.isKind(SyntaxKind.SpreadAssignment)) return [p.getName()];
      const spread = objects.get(p.getExpression().getText());
      return spread ? membersOf(spread.object, seen) : [];
    });
  };
  for (const [name, { file, object }] of objects) {
    const group = /^(.+)Handlers$/.exec(name)?.[1];
    if (group) found.set(group, { file, members: new Set(membersOf(object, new Set())) });
  }
  return found;
}

/** Writes a module for each group implemented nowhere; reports the operations existing modules lack. */
export function scaffold(model: ApiModel, options: ScaffoldOptions): ScaffoldReport {
  const report: ScaffoldReport = { written: [], missing: [] };
  const existing = implemented(options.dir);
  for (const tag of model.tags) {
    const at = existing.get(tag.group);
    if (at) {
      const lacking = tag.operations.filter((op) => !at.members.has(op.operationId));
      if (lacking.length > 0) {
        report.missing.push({ file: at.file, group: tag.group, operations: lacking.map((op) => op.operationId), stubs: stubs(lacking, options.context?.name ?? 'RequestContext') });
      }
      continue;
    }
    const file = path.join(options.dir, `${kebabCase(tag.name)}.ts`);
    // A file of that name that does not export the group is someone else's: never overwritten.
    if (existsSync(file)) continue;
    mkdirSync(options.dir, { recursive: true });
    writeFileSync(file, moduleText(tag, options), { flag: 'wx' });
    report.written.push(file);
  }
  return report;
}
