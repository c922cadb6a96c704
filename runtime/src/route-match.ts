// Route matching: the one match of a request's path and method to a documented operation, its path
// parameters decoded, or the 404, 405 or 400 problem that is handed to `next` instead.
import type { IncomingMessage } from 'node:http';
import { requestPath } from './http-io.ts';
import { ValidationError } from './openapi-validation.ts';
import type { RouteDefinition } from './router-types.ts';

/** Literal segments before parameters, so `/invoices/publish` is tried before `/invoices/{invoiceId}`. */
export function routeOrder(a: { path: string; method: string }, b: { path: string; method: string }): number {
  const as = a.path.split('/');
  const bs = b.path.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const ap = (as[i] ?? '').startsWith('{');
    const bp = (bs[i] ?? '').startsWith('{');
    if (ap !== bp) return ap ? 1 : -1;
  }
  return as.length - bs.length || a.path.localeCompare(b.path) || a.method.localeCompare(b.method);
}

/** One documented path: its pattern (parameters captured in order) and its operations by method. */
interface PathEntry<R> {
  readonly path: string;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly methods: Map<string, R>;
  readonly allow: string;
}

function pathTable<R extends RouteDefinition>(routes: readonly R[]): { literal: Map<string, PathEntry<R>>; patterns: PathEntry<R>[] } {
  const byPath = new Map<string, R[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  const all = [...byPath].map(([path, list]): PathEntry<R> => {
    const names: string[] = [];
    const source = path.split(/(\{[^}]+\})/).map((part) => {
      if (!part.startsWith('{')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(part.slice(1, -1));
      return '([^/]+)';
    }).join('');
    return {
      path, names, pattern: new RegExp(`^${source}/?$`),
      methods: new Map(list.map((r) => [r.method, r])),
      allow: list.map((r) => r.method.toUpperCase()).sort().join(', '),
    };
  }).sort((a, b) => routeOrder({ path: a.path, method: '' }, { path: b.path, method: '' }));
  // Paths without parameters are found by one map lookup; the others are tried in route order.
  const literal = new Map(all.filter((e) => e.names.length === 0).map((e) => [e.path, e]));
  return { literal, patterns: all.filter((e) => e.names.length > 0) };
}

/** The errors the router raised for a path the document does not have. */
const unknownPaths = new WeakSet<object>();

/** True for the router's 404 of a path the document does not have (not a handler's 404 of an unknown id). */
export const isUnknownPath = (err: unknown): boolean => typeof err === 'object' && err !== null && unknownPaths.has(err);

/** The operation each request in flight was matched to (for error handlers that need its schemas). */
const matched = new WeakMap<IncomingMessage, RouteDefinition>();

/** The documented operation a request was matched to, once the router has matched it. */
export function matchedRoute(req: IncomingMessage): RouteDefinition | undefined {
  return matched.get(req);
}

/** A request matched to its operation, with its path parameters decoded; or the problem to hand to `next`. */
export type RouteMatch<R> = { route: R; path: Record<string, string> } | { problem: ValidationError };

/** The matcher of a route table: routes sorted once, each request matched by one lookup or one pattern scan. */
export function routeMatcher<R extends RouteDefinition>(routes: readonly R[]): (req: IncomingMessage) => RouteMatch<R> {
  const table = pathTable(routes);

  /** The one route match of a request: the first documented path its path matches (case-sensitive). */
  const match = (path: string): { entry: PathEntry<R>; values: string[] } | undefined => {
    const literal = table.literal.get(path) ?? (path.endsWith('/') ? table.literal.get(path.slice(0, -1)) : undefined);
    const firstPattern = (): { entry: PathEntry<R>; values: string[] } | undefined => {
      for (const entry of table.patterns) {
        const found = entry.pattern.exec(path);
        if (found) return { entry, values: found.slice(1) };
      }
      return undefined;
    };
    if (!literal) return firstPattern();
    // A parameterised path sorted before the literal one (a longer literal prefix) wins, as in route order.
    const pattern = firstPattern();
    return pattern && routeOrder({ path: pattern.entry.path, method: '' }, { path: literal.path, method: '' }) < 0 ? pattern : { entry: literal, values: [] };
  };

  return (req) => {
    const pathname = requestPath(req);
    const found = match(pathname);
    if (!found) {
      // Paths are case-sensitive: one that differs from a documented path only in letter case is unknown too.
      const unknown = new ValidationError(404, 'not found', [{ path: pathname, message: 'not found' }]);
      unknownPaths.add(unknown);
      return { problem: unknown };
    }
    const route = found.entry.methods.get((req.method ?? '').toLowerCase());
    if (!route) {
      return { problem: new ValidationError(405, `${String(req.method)} method not allowed`, [{ path: pathname, message: `${String(req.method)} method not allowed` }], { Allow: found.entry.allow }) };
    }
    matched.set(req, route);
    const path: Record<string, string> = {};
    try {
      found.entry.names.forEach((name, i) => { path[name] = decodeURIComponent(found.values[i] ?? ''); });
    } catch {
      return { problem: new ValidationError(400, "malformed uri'", [{ path: pathname, message: "malformed uri'" }]) };
    }
    return { route, path };
  };
}
