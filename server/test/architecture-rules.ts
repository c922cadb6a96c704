// The server's architecture rules, checked over its sources with the TypeScript compiler (architecture.test.ts):
// the query builder only in repositories (and the migrations, and the one transaction helper), transactions and
// row locks only in platform/transaction.ts, no module-level `let` or `var`, imports that keep the layers
// (handlers -> services -> repositories), and money made, mapped to the wire and formatted only in
// platform/money.ts, and one scope per request or job (a merchant id never passed beside the dependencies it
// must agree with; a scope and a business clock opened only by the platform and the worker). A rule reports where it is broken, so a test can show each one catching a planted violation.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export type Rule = 'query-builder' | 'transaction-or-lock' | 'module-let' | 'layer' | 'money' | 'scope';

export interface Violation {
  readonly rule: Rule;
  /** Relative to server/src. */
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/** The folders of server/src; `root` is the composition root (app.ts, main.ts, instances.ts), `shared` the configuration. */
type Layer = 'handlers' | 'services' | 'repositories' | 'platform' | 'worker' | 'views' | 'db' | 'root' | 'shared';

const ROOT_FILES = new Set(['app.ts', 'main.ts', 'instances.ts']);

function layerOf(relative: string): Layer {
  const [first, ...rest] = relative.split('/');
  if (rest.length === 0) return ROOT_FILES.has(first ?? '') ? 'root' : 'shared';
  return first as Layer;
}

/**
 * Imports each layer may not make: `any` also forbids type-only imports, `value` only imports of values
 * (a handler may name a repository's record type that a service returns; it may not call the repository).
 */
const FORBIDDEN: Partial<Record<Layer, { any: readonly string[]; value: readonly string[] }>> = {
  repositories: { any: ['services', 'handlers', 'worker', 'views', 'root'], value: [] },
  services: { any: ['handlers', 'views', 'root', 'express'], value: [] },
  handlers: { any: ['worker', 'root'], value: ['repositories'] },
  platform: { any: ['services', 'handlers', 'worker', 'views'], value: ['root'] },
  worker: { any: ['handlers', 'views', 'root'], value: [] },
  views: { any: ['repositories', 'handlers', 'worker', 'root'], value: ['services'] },
  db: { any: ['services', 'handlers', 'worker', 'views', 'root'], value: [] },
};

/** Where the query builder may be used: the repositories, the migrations and seed, and the transaction helper. */
const mayQuery = (relative: string): boolean =>
  relative.startsWith('repositories/') || relative.startsWith('db/') || relative === 'platform/transaction.ts';

/** Knex methods that are no query: the pool's life cycle. */
const LIFECYCLE = new Set(['destroy', 'initialize', 'on', 'once', 'off', 'removeListener']);

/** Knex methods that open a transaction or take a row lock. */
const LOCKING = new Set(['transaction', 'forUpdate', 'forNoKeyUpdate', 'forShare', 'forKeyShare', 'skipLocked', 'noWait']);

/** SQL text that takes a row lock or a transaction by hand. */
const LOCKING_SQL = /\b(for\s+(no\s+key\s+)?update|for\s+(key\s+)?share|skip\s+locked|begin\s+transaction)\b/i;

/** Whether a type is Knex's (the instance, a transaction, a builder), or a union or intersection with one. */
function isKnexType(type: ts.Type): boolean {
  if (type.isUnionOrIntersection()) return type.types.some(isKnexType);
  // Both the alias and what it names: `Database` is this server's alias of Knex.
  return [type.aliasSymbol, type.getSymbol()].some((symbol) =>
    (symbol?.getDeclarations() ?? []).some((d) => /[\\/]node_modules[\\/]knex[\\/]/.test(d.getSourceFile().fileName)));
}

/** Where cents are made, mapped to the wire and formatted for people (the one module of money). */
const MONEY = 'platform/money.ts';

/** Whether a type is money's `Cents` (or a union with it, as `Cents | null`). */
function isCentsType(type: ts.Type): boolean {
  if (type.isUnion()) return type.types.some(isCentsType);
  const symbol = type.aliasSymbol;
  return symbol?.getName() === 'Cents'
    && (symbol.getDeclarations() ?? []).some((d) => d.getSourceFile().fileName.split(path.sep).join('/').endsWith(`/${MONEY}`));
}

/** The dependency shapes a merchant's scope replaces: a `merchantId` parameter beside one of them is a second merchant. */
const DEPENDENCY_TYPE = /\b(Deps|Scope|Platform|Services|ServerContext)\b/;
/** What opens a scope or builds a business clock: only the platform (and the worker, the platform of jobs) calls these. */
const OPENERS = new Set(['openScope', 'openMerchantScope', 'businessClock']);
const mayOpen = (relative: string): boolean => relative.startsWith('platform/') || relative.startsWith('worker/') || relative === 'app.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** A program over server/src (tests left out) and `planted` files (path relative to server/src -> text). */
function programOf(srcDir: string, planted: Readonly<Record<string, string>>): ts.Program {
  const configPath = path.join(srcDir, '..', '..', 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (f) => ts.sys.readFile(f));
  const options = ts.parseJsonConfigFileContent(config.config, ts.sys, path.dirname(configPath)).options;
  const extra = new Map(Object.entries(planted).map(([relative, text]) => [path.join(srcDir, relative), text]));
  const host = ts.createCompilerHost(options, true);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (f) => extra.has(f) || fileExists(f);
  host.readFile = (f) => extra.get(f) ?? readFile(f);
  host.getSourceFile = (f, language, onError, create) => {
    const text = extra.get(f);
    return text === undefined ? getSourceFile(f, language, onError, create) : ts.createSourceFile(f, text, language, true);
  };
  return ts.createProgram([...sourceFiles(srcDir), ...extra.keys()], options, host);
}

/** The imports of a file: the specifier, and whether only types are imported. */
function importsOf(file: ts.SourceFile): { specifier: string; typeOnly: boolean; node: ts.Node }[] {
  const found: { specifier: string; typeOnly: boolean; node: ts.Node }[] = [];
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly = clause !== undefined && (clause.phaseModifier === ts.SyntaxKind.TypeKeyword
        || (clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly)));
      found.push({ specifier: statement.moduleSpecifier.text, typeOnly, node: statement });
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      const clause = statement.exportClause;
      const typeOnly = statement.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly));
      found.push({ specifier: statement.moduleSpecifier.text, typeOnly, node: statement });
    }
  }
  return found;
}

/** The layer an import reaches: a folder of server/src, or a package name (`express`); undefined for anything else. */
function targetOf(srcDir: string, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return specifier.split('/')[0];
  const target = path.resolve(path.dirname(from), specifier);
  const relative = path.relative(srcDir, target);
  if (relative.startsWith('..')) return undefined;
  return layerOf(relative.split(path.sep).join('/'));
}

/** Every violation of the rules in server/src (at `srcDir`), with `planted` files added to it. */
export function checkServer(srcDir: string, planted: Readonly<Record<string, string>> = {}): Violation[] {
  const program = programOf(srcDir, planted);
  const checker = program.getTypeChecker();
  const violations: Violation[] = [];
  for (const file of program.getSourceFiles()) {
    const relativePath = path.relative(srcDir, file.fileName);
    if (relativePath.startsWith('..') || path.isAbsolute(relativePath) || file.fileName.endsWith('.test.ts')) continue;
    const relative = relativePath.split(path.sep).join('/');
    const report = (rule: Rule, node: ts.Node): void => {
      const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
      violations.push({ rule, file: relative, line: line + 1, text: node.getText(file).split('\n')[0]?.slice(0, 120) ?? '' });
    };
    // Module-level mutable bindings: state belongs on an instance made at start.
    for (const statement of file.statements) {
      if (ts.isVariableStatement(statement) && (statement.declarationList.flags & ts.NodeFlags.Const) === 0) report('module-let', statement);
    }
    // Imports by layer.
    const forbidden = FORBIDDEN[layerOf(relative)];
    if (forbidden) {
      for (const imported of importsOf(file)) {
        const target = targetOf(srcDir, file.fileName, imported.specifier);
        if (target === undefined) continue;
        if (forbidden.any.includes(target) || (!imported.typeOnly && forbidden.value.includes(target))) report('layer', imported.node);
      }
    }
    // Money: an assertion to Cents makes cents without a constructor; cents multiplied or divided are a
    // second wire mapping; a locale currency format is a second formatter.
    if (relative !== MONEY) {
      const money = (node: ts.Node): void => {
        if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && isCentsType(checker.getTypeFromTypeNode(node.type))) {
          report('money', node);
        } else if (ts.isBinaryExpression(node) && [ts.SyntaxKind.SlashToken, ts.SyntaxKind.AsteriskToken].includes(node.operatorToken.kind)
          && [node.left, node.right].some((side) => isCentsType(checker.getTypeAtLocation(side)))) {
          report('money', node);
        } else if (ts.isPropertyAssignment(node) && node.name.getText(file) === 'style' && ts.isStringLiteral(node.initializer) && node.initializer.text === 'currency') {
          report('money', node);
        }
        ts.forEachChild(node, money);
      };
      money(file);
    }
    // One scope: no parameter list has a merchant id beside a dependency shape (platform/scope.ts, which opens
    // scopes from both, aside); openers called only where a request or job begins.
    const scoped = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && relative !== 'platform/scope.ts') {
        const params = node.parameters;
        const hasDeps = params.some((p) => p.type !== undefined && DEPENDENCY_TYPE.test(p.type.getText(file)));
        const merchant = params.find((p) => p.name.getText(file) === 'merchantId');
        if (hasDeps && merchant) report('scope', merchant);
      }
      if (ts.isCallExpression(node) && !mayOpen(relative)) {
        const callee = node.expression;
        const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
        if (OPENERS.has(name)) report('scope', node);
      }
      ts.forEachChild(node, scoped);
    };
    scoped(file);
    // The helper itself, and the schema's own work (migrations and the seed run their transactions).
    if (relative === 'platform/transaction.ts' || relative.startsWith('db/')) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node)) {
        const callee = node.expression;
        if (ts.isPropertyAccessExpression(callee)) {
          if (isKnexType(checker.getTypeAtLocation(callee.expression))) {
            const name = callee.name.text;
            if (LOCKING.has(name)) report('transaction-or-lock', node);
            else if (!mayQuery(relative) && !LIFECYCLE.has(name)) report('query-builder', node);
          }
        } else if (!mayQuery(relative) && isKnexType(checker.getTypeAtLocation(callee))) {
          report('query-builder', node);
        }
      } else if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node))
        && LOCKING_SQL.test(node.text)) {
        report('transaction-or-lock', node);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return violations;
}
