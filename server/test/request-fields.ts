// Which request fields no server code can read: for every operation, each property of its request body (nested
// ones too) must be named somewhere in the code its handler reaches (the handler's module and every module it
// imports, transitively, in server/src). A field named nowhere there is dropped silently; those the server takes
// on purpose without naming them are listed with the reason (UNREAD_ON_PURPOSE).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = Record<string, Json>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A request field: the operation, its dotted path in the body, and the property name itself. */
export interface RequestField { operationId: string; path: string; name: string }

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const MEDIA = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];

/** Every property of every operation's request body (following $ref, allOf/oneOf/anyOf and items). */
export function requestFields(doc: Obj): RequestField[] {
  const resolve = (node: Json, seen: Set<string>): Json => {
    if (!isObj(node) || typeof node.$ref !== 'string') return node;
    const ref = node.$ref;
    if (seen.has(ref)) return null;
    seen.add(ref);
    let target: Json = doc;
    for (const part of ref.replace(/^#\//, '').split('/')) target = isObj(target) ? (target[part.replaceAll('~1', '/').replaceAll('~0', '~')] ?? null) : null;
    return resolve(target, seen);
  };
  const fields: RequestField[] = [];
  const walk = (operationId: string, node: Json, prefix: string, seen: Set<string>): void => {
    const schema = resolve(node, seen);
    if (!isObj(schema)) return;
    for (const key of ['allOf', 'oneOf', 'anyOf']) {
      const list = schema[key];
      if (Array.isArray(list)) for (const part of list) walk(operationId, part, prefix, new Set(seen));
    }
    if (schema.items !== undefined) walk(operationId, schema.items, `${prefix}[]`, new Set(seen));
    if (isObj(schema.properties)) {
      for (const [name, sub] of Object.entries(schema.properties)) {
        const at = prefix === '' ? name : `${prefix}.${name}`;
        fields.push({ operationId, path: at, name });
        walk(operationId, sub, at, new Set(seen));
      }
    }
  };
  for (const item of Object.values(isObj(doc.paths) ? doc.paths : {})) {
    if (!isObj(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op) || typeof op.operationId !== 'string') continue;
      const body = resolve(op.requestBody ?? null, new Set());
      const content = isObj(body) && isObj(body.content) ? body.content : {};
      for (const media of MEDIA) {
        const entry = content[media];
        if (isObj(entry)) walk(op.operationId, entry.schema ?? null, '', new Set());
      }
    }
  }
  // One field per operation and path (a form body and a JSON body of one operation name the same fields).
  return [...new Map(fields.map((f) => [`${f.operationId} ${f.path}`, f])).values()];
}

/** The names a module's code uses: identifiers, property names and string literals (a `body['x']` reads `x`). */
function namesIn(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) names.add(node.text);
    else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) names.add(node.text);
    // Types name fields without reading them.
    if (ts.isTypeNode(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return;
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/** Parsed modules of a folder (path -> source), and of files planted in memory beside them. */
export function loadModules(srcDir: string, planted: Record<string, string> = {}): Map<string, ts.SourceFile> {
  const modules = new Map<string, ts.SourceFile>();
  const read = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) read(file);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) modules.set(file, ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true));
    }
  };
  read(srcDir);
  for (const [name, text] of Object.entries(planted)) {
    const file = path.join(srcDir, name);
    modules.set(file, ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true));
  }
  return modules;
}

/** The operation ids a handler module implements (its methods, and properties naming a function). */
function operationsOf(source: ts.SourceFile, operationIds: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isMethodDeclaration(node) || ts.isPropertyAssignment(node)) && ts.isIdentifier(node.name) && operationIds.has(node.name.text)) found.push(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The modules a module imports at run time (not `import type`), relative, within the loaded set. */
function importsOf(file: string, source: ts.SourceFile, modules: Map<string, ts.SourceFile>): string[] {
  const out: string[] = [];
  for (const statement of source.statements) {
    if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) || !statement.moduleSpecifier || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (ts.isImportDeclaration(statement) && statement.importClause?.phaseModifier === ts.SyntaxKind.TypeKeyword) continue;
    const target = path.resolve(path.dirname(file), statement.moduleSpecifier.text);
    if (modules.has(target)) out.push(target);
  }
  return out;
}

/**
 * Request fields that no module reachable from the operation's handler names, less those read on purpose
 * another way (`onPurpose`: "operationId path" -> reason). Also the operations no handler module implements.
 */
export function unreadFields(doc: Obj, modules: Map<string, ts.SourceFile>, handlersDir: string, onPurpose: Readonly<Record<string, string>>): { unread: string[]; noHandler: string[] } {
  const fields = requestFields(doc);
  const operationIds = new Set(fields.map((f) => f.operationId));
  const reach = new Map<string, Set<string>>();
  const namesOf = new Map<string, Set<string>>();
  for (const [file, source] of modules) {
    if (!file.startsWith(handlersDir + path.sep)) continue;
    for (const operationId of operationsOf(source, operationIds)) {
      const seen = reach.get(operationId) ?? new Set<string>();
      const todo = [file];
      while (todo.length > 0) {
        const next = todo.pop() ?? '';
        if (seen.has(next)) continue;
        seen.add(next);
        const module = modules.get(next);
        if (module) todo.push(...importsOf(next, module, modules));
      }
      reach.set(operationId, seen);
    }
  }
  const names = (file: string): Set<string> => {
    let set = namesOf.get(file);
    if (!set) { const module = modules.get(file); set = module ? namesIn(module) : new Set(); namesOf.set(file, set); }
    return set;
  };
  const unread: string[] = [];
  for (const f of fields) {
    const key = `${f.operationId} ${f.path}`;
    const files = reach.get(f.operationId);
    if (!files || key in onPurpose) continue;
    if (![...files].some((file) => names(file).has(f.name))) unread.push(key);
  }
  return { unread, noHandler: [...operationIds].filter((id) => !reach.has(id)) };
}
