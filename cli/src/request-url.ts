// The URL of a fixture step's request, written by the CLI itself: a path parameter is data, one percent-encoded
// segment that cannot change the path (no `/`, `?`, `#`, `%` of its own; never `.`, `..` or empty, which a URL
// parser would resolve), and the query's names and values are percent-encoded too.
import { UsageError } from './errors.ts';

type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

/** How many times a value is percent-decoded to find a `.` or `..` in disguise (`%2e%2e`, `%252e%252e`). */
const DECODINGS = 3;

/**
 * Why the text cannot be a path segment, or undefined when it can: empty, `.` or `..` (a URL parser removes the
 * first and climbs a level for the second, so the request would go elsewhere), or text that percent-decodes to
 * one of them (a server or proxy that decodes again would read it so).
 */
export function segmentRefusal(text: string): string | undefined {
  const said = (seen: string): string => (seen === '' ? 'empty text would leave the segment out' : seen === '.' ? '"." is removed from a path' : '".." climbs one level up the path');
  let seen = text;
  for (let i = 0; i <= DECODINGS; i++) {
    if (seen === '' || seen === '.' || seen === '..') return i === 0 ? said(seen) : `it percent-decodes to "${seen}", and ${said(seen)}`;
    let next: string;
    try {
      next = decodeURIComponent(seen);
    } catch {
      break;
    }
    if (next === seen) break;
    seen = next;
  }
  return undefined;
}

/** A path parameter's value as one encoded segment; a usage error naming the step and parameter when it cannot be one. */
export function pathSegment(name: string, value: unknown, where: string): string {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new UsageError(`${where}: path.${name} must be text or a number (got ${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : typeof value})`);
  }
  const text = String(value);
  const refusal = segmentRefusal(text);
  if (refusal !== undefined) {
    throw new UsageError(`${where}: path.${name} "${text}" cannot be a path segment: ${refusal}. (a path parameter is data, sent as one encoded segment)`);
  }
  // encodeURIComponent leaves only A-Z a-z 0-9 - _ . ! ~ * ' ( ): never / ? # % \ or a space.
  return encodeURIComponent(text);
}

/** The operation's path template (`/customers/{customerId}`) with each parameter written as one segment. */
export function fillPath(template: string, values: Record<string, unknown>, where: string): string {
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
  const extra = Object.keys(values).filter((k) => !names.includes(k));
  if (extra.length > 0) throw new UsageError(`${where}: path.${extra[0] ?? ''} is not a parameter of ${template}`);
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (values[name] === undefined) throw new UsageError(`${where}: ${template} needs path.${name}`);
    return pathSegment(name, values[name], where);
  });
}

/**
 * The query string (with its `?`, or empty): each name and value percent-encoded; a list repeats its name (the
 * form style, OpenAPI's default); null leaves the parameter out; an object is refused (no operation takes one).
 */
export function queryString(values: Record<string, unknown>, where: string): string {
  const pairs: string[] = [];
  const one = (name: string, value: unknown): void => {
    if (value === null || value === undefined) return;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new UsageError(`${where}: query.${name} must be text, a number, true or false, or a list of them`);
    }
    pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  };
  for (const [name, value] of Object.entries(values)) {
    if (Array.isArray(value)) for (const v of value as Value[]) one(name, v);
    else one(name, value);
  }
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}
