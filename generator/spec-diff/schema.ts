// The schema walk of spec:diff: two versions of one schema compared keyword by keyword, $refs followed, allOf
// flattened, each difference recorded under the rule of rules.ts for the side (request or response) it is on.
import type { Collector } from './collector.ts';
import type { RuleId, Side } from './rules.ts';

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The node a local `$ref` (`#/components/schemas/X`) points at, or undefined. */
function pointer(doc: JsonObject, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isObject(node) ? node[key] : Array.isArray(node) ? (node as unknown[])[Number(key)] : undefined;
  }
  return node;
}

export interface Resolved {
  node: JsonObject;
  /** The last `$ref` followed (the component that names it), when there was one. */
  ref?: string;
}

/** `node` with its `$ref`s followed; sibling keywords of a `$ref` (3.1 allows them) override the target's. */
export function resolve(doc: JsonObject, node: unknown): Resolved {
  let current: unknown = node;
  let ref: string | undefined;
  let siblings: JsonObject = {};
  for (let depth = 0; isObject(current) && typeof current.$ref === 'string' && depth < 32; depth += 1) {
    ref = current.$ref;
    const rest: JsonObject = Object.fromEntries(Object.entries(current).filter(([key]) => key !== '$ref'));
    siblings = { ...rest, ...siblings };
    current = pointer(doc, ref);
    if (current === undefined) throw new Error(`unresolvable $ref ${ref}`);
  }
  // A boolean schema or a missing one: `true` and absent accept anything, as `{}` does.
  const node_ = isObject(current) ? current : current === false ? { not: {} } : {};
  const merged = Object.keys(siblings).length > 0 ? { ...node_, ...siblings } : node_;
  return ref === undefined ? { node: merged } : { node: merged, ref };
}

/** The name a reader knows a component by: the last segment of its `$ref`. */
export const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1).replace(/~1/g, '/').replace(/~0/g, '~');

interface Property {
  schema: unknown;
  /** Where the property is declared: the component (or inline location) that owns it. */
  owner: string;
}

/** A schema with its allOf members merged in: properties keep the name of the component that declares them. */
interface Flat {
  keywords: JsonObject;
  properties: Map<string, Property>;
  required: Set<string>;
}

function flatten(doc: JsonObject, schema: JsonObject, owner: string, depth = 0): Flat {
  const { allOf, properties, required, ...keywords } = schema;
  const flat: Flat = { keywords, properties: new Map(), required: new Set(Array.isArray(required) ? required.map(String) : []) };
  if (isObject(properties)) for (const [name, property] of Object.entries(properties)) flat.properties.set(name, { schema: property, owner });
  if (Array.isArray(allOf) && depth < 16) {
    for (const member of allOf) {
      const resolved = resolve(doc, member);
      const part = flatten(doc, resolved.node, resolved.ref === undefined ? owner : refName(resolved.ref), depth + 1);
      // A property several members declare must satisfy all of them; the later (more specific) member names it.
      for (const [name, property] of part.properties) {
        const earlier = flat.properties.get(name);
        flat.properties.set(name, earlier === undefined ? property : { schema: { allOf: [earlier.schema, property.schema] }, owner: property.owner });
      }
      for (const name of part.required) flat.required.add(name);
      for (const [key, value] of Object.entries(part.keywords)) if (!(key in flat.keywords)) flat.keywords[key] = value;
    }
  }
  return flat;
}

const typesOf = (s: JsonObject): Set<string> | undefined =>
  typeof s.type === 'string' ? new Set([s.type]) : Array.isArray(s.type) ? new Set(s.type.map(String)) : undefined;

const valuesOf = (s: JsonObject): unknown[] | undefined => (Array.isArray(s.enum) ? s.enum : 'const' in s ? [s.const] : undefined);

const text = (v: unknown): string => JSON.stringify(v);
const list = (values: readonly unknown[]): string => values.map(text).join(', ');

/** Upper limits: a smaller value (or a new limit) lets fewer values through. */
const UPPER = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties', 'x-decimal-places'] as const;
/** Lower limits: a larger value (or a new limit) lets fewer values through. */
const LOWER = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
/** Limits that are either the same or different: any change to one lets other values through. */
const EXACT = ['pattern', 'multipleOf'] as const;

export interface Walk {
  base: JsonObject;
  revision: JsonObject;
  collector: Collector;
  /** Event types new in the revision: an enum of event types growing by them is the event added, no more. */
  newEvents: ReadonlySet<string>;
}

/** Compares two versions of a schema. `where` names it for the listing; `use` is the operation or event. */
export class SchemaWalk {
  /** The changes found under each pair of shared schemas already compared, by side and both $refs. */
  private readonly done = new Map<string, Set<string>>();
  private readonly running = new Set<string>();

  constructor(private readonly walk: Walk) {}

  compare(baseNode: unknown, revisionNode: unknown, where: string, side: Side, use: string): void {
    const b = resolve(this.walk.base, baseNode);
    const r = resolve(this.walk.revision, revisionNode);
    if (b.ref === undefined && r.ref === undefined) {
      this.compareResolved(b.node, r.node, where, side, use);
      return;
    }
    const name = refName(r.ref ?? b.ref ?? '');
    const key = `${side}|${b.ref ?? ''}|${r.ref ?? ''}|${b.ref !== undefined && r.ref !== undefined ? '' : where}`;
    const done = this.done.get(key);
    if (done) {
      this.walk.collector.reuse(done, use);
      return;
    }
    if (this.running.has(key)) return; // a recursive schema: its changes are found by the comparison running
    this.running.add(key);
    const found = this.walk.collector.within(() => { this.compareResolved(b.node, r.node, name, side, use); });
    this.running.delete(key);
    this.done.set(key, found);
  }

  private add(rule: RuleId, side: Side, where: string, detail: string, use: string): void {
    this.walk.collector.add(rule, side, where, detail, use);
  }

  private compareResolved(base: JsonObject, revision: JsonObject, where: string, side: Side, use: string): void {
    const b = flatten(this.walk.base, base, where);
    const r = flatten(this.walk.revision, revision, where);
    this.compareTypes(b.keywords, r.keywords, where, side, use);
    this.compareValues(b.keywords, r.keywords, where, side, use);
    this.compareLimits(b.keywords, r.keywords, where, side, use);
    this.compareProperties(b, r, where, side, use);
    if ('items' in b.keywords || 'items' in r.keywords) this.compare(b.keywords.items, r.keywords.items, `${where}[]`, side, use);
    this.compareVariants(b.keywords, r.keywords, where, side, use);
  }

  private compareTypes(b: JsonObject, r: JsonObject, where: string, side: Side, use: string): void {
    // A oneOf/anyOf without a type of its own is typed by its variants, compared there.
    const bt = typesOf(b);
    const rt = typesOf(r);
    if (bt === undefined && rt === undefined) return;
    if (bt === undefined || rt === undefined) {
      const composed = (s: JsonObject): boolean => 'oneOf' in s || 'anyOf' in s;
      if (composed(b) || composed(r)) return;
      if (bt === undefined) this.add('type-narrowed', side, where, `any -> ${[...(rt ?? [])].join('|')}`, use);
      else this.add('type-widened', side, where, `${[...bt].join('|')} -> any`, use);
      return;
    }
    if (bt.has('null') !== rt.has('null')) this.add(rt.has('null') ? 'nullable-added' : 'nullable-removed', side, where, '', use);
    const removed = [...bt].filter((t) => t !== 'null' && !rt.has(t) && !(t === 'integer' && rt.has('number')));
    const added = [...rt].filter((t) => t !== 'null' && !bt.has(t) && !(t === 'integer' && bt.has('number')));
    // integer -> number widens, number -> integer narrows: each is one of the two lists here.
    const detail = `${[...bt].join('|')} -> ${[...rt].join('|')}`;
    const intToNumber = bt.has('integer') && !bt.has('number') && rt.has('number');
    const numberToInt = bt.has('number') && !rt.has('number') && rt.has('integer');
    const narrowed = removed.filter((t) => !(numberToInt && t === 'number'));
    const widened = added.filter((t) => !(intToNumber && t === 'number'));
    const narrows = narrowed.length > 0 || numberToInt;
    const widens = widened.length > 0 || intToNumber;
    if (narrowed.length > 0 && widened.length > 0) this.add('type-changed', side, where, detail, use);
    else if (narrows) this.add('type-narrowed', side, where, detail, use);
    else if (widens) this.add('type-widened', side, where, detail, use);
  }

  private compareValues(b: JsonObject, r: JsonObject, where: string, side: Side, use: string): void {
    const bv = valuesOf(b);
    const rv = valuesOf(r);
    if (bv === undefined && rv === undefined) return;
    if (bv === undefined) { this.add('enum-introduced', side, where, list(rv ?? []), use); return; }
    if (rv === undefined) { this.add('enum-dropped', side, where, list(bv), use); return; }
    const removed = bv.filter((v) => !rv.some((w) => text(w) === text(v)));
    const added = rv.filter((v) => !bv.some((w) => text(w) === text(v)));
    if (removed.length > 0) this.add('enum-value-removed', side, where, list(removed), use);
    if (added.length > 0) {
      const events = added.every((v) => typeof v === 'string' && this.walk.newEvents.has(v));
      this.add(events ? 'event-type-value-added' : 'enum-value-added', side, where, list(added), use);
    }
  }

  private compareLimits(b: JsonObject, r: JsonObject, where: string, side: Side, use: string): void {
    const limit = (keyword: string, rule: RuleId): void => { this.add(rule, side, `${where}:${keyword}`, `${text(b[keyword])} -> ${text(r[keyword])}`, use); };
    for (const keyword of [...UPPER, ...LOWER]) {
      const before = b[keyword];
      const after = r[keyword];
      if (text(before) === text(after)) continue;
      if (typeof before !== 'number') limit(keyword, 'constraint-tightened');
      else if (typeof after !== 'number') limit(keyword, 'constraint-loosened');
      else limit(keyword, (UPPER as readonly string[]).includes(keyword) === after < before ? 'constraint-tightened' : 'constraint-loosened');
    }
    for (const keyword of EXACT) {
      if (text(b[keyword]) === text(r[keyword])) continue;
      limit(keyword, b[keyword] === undefined ? 'constraint-tightened' : r[keyword] === undefined ? 'constraint-loosened' : 'constraint-changed');
    }
    if (Boolean(b.uniqueItems) !== Boolean(r.uniqueItems)) limit('uniqueItems', r.uniqueItems === true ? 'constraint-tightened' : 'constraint-loosened');
    const bf = b.format;
    const rf = r.format;
    if (bf !== rf) {
      const rule: RuleId = bf === undefined ? 'format-added' : rf === undefined ? 'format-removed' : 'format-changed';
      this.add(rule, side, where, `${String(bf)} -> ${String(rf)}`, use);
    }
  }

  private compareProperties(b: Flat, r: Flat, where: string, side: Side, use: string): void {
    // A property a side never carries (readOnly in a request, writeOnly in a response) changes nothing there.
    const carried = (p: Property, doc: JsonObject): boolean => {
      const s = resolve(doc, p.schema).node;
      return side === 'request' ? s.readOnly !== true : s.writeOnly !== true;
    };
    for (const [name, property] of b.properties) {
      if (!carried(property, this.walk.base)) continue;
      const other = r.properties.get(name);
      const at = `${other?.owner ?? property.owner}.${name}`;
      if (other === undefined || !carried(other, this.walk.revision)) {
        this.add('property-removed', side, at, '', use);
        continue;
      }
      if (b.required.has(name) !== r.required.has(name)) this.add(r.required.has(name) ? 'property-became-required' : 'property-became-optional', side, at, '', use);
      this.compare(property.schema, other.schema, at, side, use);
    }
    for (const [name, property] of r.properties) {
      if (!carried(property, this.walk.revision)) continue;
      const before = b.properties.get(name);
      if (before !== undefined && carried(before, this.walk.base)) continue;
      this.add(r.required.has(name) ? 'property-added-required' : 'property-added', side, `${property.owner}.${name}`, '', use);
    }
    // unevaluatedProperties: false closes an object as additionalProperties: false does (across its allOf parts).
    const openness = (s: JsonObject): 'open' | 'closed' | 'schema' =>
      s.additionalProperties === false || s.unevaluatedProperties === false ? 'closed' : isObject(s.additionalProperties) ? 'schema' : 'open';
    const bo = openness(b.keywords);
    const ro = openness(r.keywords);
    if (bo === 'schema' && ro === 'schema') this.compare(b.keywords.additionalProperties, r.keywords.additionalProperties, `${where}{*}`, side, use);
    else if (bo !== ro) {
      const refused = ro === 'closed' || (bo === 'open' && ro === 'schema');
      this.add(refused ? 'additional-properties-refused' : 'additional-properties-allowed', side, where, `${bo} -> ${ro}`, use);
    }
  }

  private compareVariants(b: JsonObject, r: JsonObject, where: string, side: Side, use: string): void {
    const variants = (s: JsonObject): unknown[] | undefined => (Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined);
    const bv = variants(b);
    const rv = variants(r);
    if (bv === undefined && rv === undefined) return;
    if (bv === undefined || rv === undefined) { this.add('composition-changed', side, where, bv === undefined ? 'variants introduced' : 'variants dropped', use); return; }
    // A variant is known by the component it references, an inline one by its position.
    const keyed = (list: unknown[]): Map<string, unknown> =>
      new Map(list.map((v, i) => [isObject(v) && typeof v.$ref === 'string' ? refName(v.$ref) : `#${String(i + 1)}`, v]));
    const bk = keyed(bv);
    const rk = keyed(rv);
    for (const [key, variant] of bk) {
      const other = rk.get(key);
      if (other === undefined) this.add('variant-removed', side, `${where}|${key}`, '', use);
      else this.compare(variant, other, `${where}|${key}`, side, use);
    }
    for (const key of rk.keys()) if (!bk.has(key)) this.add('variant-added', side, `${where}|${key}`, '', use);
  }
}
