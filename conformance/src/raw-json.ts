// JSON bodies written as text the client chooses: a number spelled exactly as given (`1.50`, `4.99e25`, `-0`),
// which JSON.stringify cannot write, for the cases that judge how a gateway reads the text of a number.

/** A number token written verbatim into a body (`new RawNumber('1.005')`). */
export class RawNumber {
  constructor(readonly text: string) {}
}

/** A JSON value whose number leaves may be raw tokens (an undefined property is left out, as JSON.stringify does). */
export type RawJson = null | boolean | number | string | RawNumber | RawJson[] | { [key: string]: RawJson | undefined };

/** Writes a body as JSON, raw number tokens as their text (undefined properties left out, as JSON.stringify does). */
export function stringifyRaw(value: RawJson | undefined): string {
  if (value instanceof RawNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => stringifyRaw(v)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value).filter(([, v]) => v !== undefined).map(([k, v]) => `${JSON.stringify(k)}:${stringifyRaw(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** True when a body holds a raw token (it must be sent as text, not through JSON.stringify). */
export function hasRaw(value: unknown): boolean {
  if (value instanceof RawNumber) return true;
  if (Array.isArray(value)) return value.some(hasRaw);
  if (typeof value === 'object' && value !== null) return Object.values(value).some(hasRaw);
  return false;
}

/** Sets a path (`['lineItems', 0, 'quantity']`) in a copy of a body; a missing parent leaves the copy as it is. */
export function setPath(body: RawJson, path: readonly (string | number)[], value: RawJson | undefined): RawJson {
  if (path.length === 0) return value ?? null;
  const [head, ...rest] = path;
  if (Array.isArray(body) && typeof head === 'number') {
    if (head >= body.length) return body;
    const copy = [...body];
    if (rest.length === 0 && value === undefined) copy.splice(head, 1);
    else copy[head] = rest.length === 0 ? (value ?? null) : setPath(body[head] ?? null, rest, value);
    return copy;
  }
  if (typeof body === 'object' && body !== null && !(body instanceof RawNumber) && !Array.isArray(body) && typeof head === 'string') {
    const copy: { [key: string]: RawJson | undefined } = { ...body };
    if (rest.length === 0) {
      if (value === undefined) Reflect.deleteProperty(copy, head);
      else copy[head] = value;
    } else {
      const child = body[head];
      if (child === undefined || child === null || typeof child !== 'object' || child instanceof RawNumber) return body;
      copy[head] = setPath(child, rest, value);
    }
    return copy;
  }
  return body;
}

/** `amount`, `lineItems[0].quantity`: a path as the error bodies name fields. */
export const fieldName = (path: readonly (string | number)[]): string =>
  path.map((p, i) => (typeof p === 'number' ? `[${String(p)}]` : i === 0 ? p : `.${p}`)).join('');
