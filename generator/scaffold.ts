// The scaffold step: a starting handler module for each tag that has none; never overwrites one.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ApiModel, TagModel } from './model.ts';
import { kebabCase } from './names.ts';

export interface ScaffoldOptions {
  /** Folder of the hand-written handler modules, one per tag (`customers.ts`). */
  readonly dir: string;
  /** The generated folder, to import the handler types from. */
  readonly generatedDir: string;
  /** The handler context type and the module that exports it; default the router's RequestContext. */
  readonly context?: { readonly name: string; readonly from: string } | undefined;
}

const importPath = (from: string, to: string): string => {
  const relative = path.relative(from, to).split(path.sep).join('/');
  return relative.startsWith('.') ? relative : `./${relative}`;
};

function moduleText(tag: TagModel, options: ScaffoldOptions): string {
  const generated = importPath(options.dir, options.generatedDir);
  const context = options.context;
  const methods = tag.operations.map(
    (op) => `  // (input: op.${op.typeName}Input, context: ${context?.name ?? 'RequestContext'})${op.deprecated ? '\n  // eslint-disable-next-line @typescript-eslint/no-deprecated -- deprecated in the document, still served' : ''}
  ${op.operationId}(): Promise<op.${op.typeName}Result> {
    return Promise.reject(new Error('${op.operationId}: this handler is still to be written'));
  },`,
  );
  const contextImport = context ? `import type { ${context.name} } from '${importPath(options.dir, context.from)}';\n` : '';
  const satisfies = context ? `${tag.interfaceName}<${context.name}>` : tag.interfaceName;
  return `// Handlers of the "${tag.name}" operations. Written once by \`npm run generate\` as a starting point; yours to edit.
// (The generator never overwrites this file. Remove this note once the handlers are written.)
import type { ${tag.interfaceName} } from '${generated}/handlers.ts';
import type * as op from '${generated}/operations.ts';
${contextImport}
export const ${tag.group}Handlers = {
${methods.join('\n')}
} satisfies ${satisfies};
`;
}

/** Writes a module for each tag without one; returns the files written. */
export function scaffold(model: ApiModel, options: ScaffoldOptions): string[] {
  const written: string[] = [];
  for (const tag of model.tags) {
    const file = path.join(options.dir, `${kebabCase(tag.name)}.ts`);
    if (existsSync(file)) continue;
    mkdirSync(options.dir, { recursive: true });
    writeFileSync(file, moduleText(tag, options), { flag: 'wx' });
    written.push(file);
  }
  return written;
}
