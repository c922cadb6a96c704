// Marks what the project designed (x-provenance: designed, x-designed-*) visibly on the documentation page:
// a "Designed" badge that Redoc shows beside an operation, a webhook or a field, and a sentence in its
// description with the spec's own reason (x-provenance-note). Applied to a copy of the bundled document at
// docs build time, so the authored spec stays the one source of these facts.

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

export const DESIGNED_BADGE = 'Designed';
const BADGE_COLOR = '#8a4b08';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** What one mark says, for the page and for the tests that look for it on the page. */
export interface Mark {
  /** JSON pointer of the marked object in the bundled document. */
  pointer: string;
  kind: 'operation' | 'webhook' | 'schema' | 'parameter' | 'tag';
  /** The sentence added at the top of the description. */
  sentence: string;
}

const note = (node: Node): string => (typeof node['x-provenance-note'] === 'string' ? ` ${node['x-provenance-note'].trim()}` : '');
const list = (value: unknown): string[] => (Array.isArray(value) ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))) : []);

/** The sentence for a node's designed parts, or undefined when it has none. */
function sentenceOf(node: Node): string | undefined {
  if (node['x-provenance'] === 'designed') return `**Designed** (not in the interface).${note(node)}`;
  const parts: string[] = [];
  const limits = list(node['x-designed-limits']);
  if (limits.length > 0) parts.push(`limits ${limits.map((l) => `\`${l}\`${node[l] === undefined ? '' : ` ${JSON.stringify(node[l])}`}`).join(', ')}`);
  const values = list(node['x-designed-values']);
  if (values.length > 0) parts.push(`values ${values.map((v) => `\`${v}\``).join(', ')}`);
  const required = list(node['x-designed-required']);
  if (required.length > 0) parts.push(`required fields ${required.map((r) => `\`${r}\``).join(', ')}`);
  if (parts.length === 0) return undefined;
  return `**Designed:** ${parts.join('; ')}.${note(node)}`;
}

function mark(node: Node, pointer: string, kind: Mark['kind'], marks: Mark[]): void {
  const sentence = sentenceOf(node);
  if (sentence === undefined) return;
  const description = typeof node.description === 'string' ? node.description : '';
  node.description = description === '' ? sentence : `${sentence}\n\n${description}`;
  // Tags and parameters show no badges in Redoc: their sentence is the mark.
  if (kind !== 'tag' && kind !== 'parameter') {
    const existing: unknown = node['x-badges'];
    const badges: unknown[] = Array.isArray(existing) ? (existing as unknown[]) : [];
    node['x-badges'] = [...badges, { name: DESIGNED_BADGE, color: BADGE_COLOR, position: 'after' }];
  }
  marks.push({ pointer, kind, sentence });
}

const escape = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** What kind of object sits at a pointer: an operation, a webhook, a parameter, a tag, or else a schema. */
function kindAt(pointer: string, parentKey: string | undefined): Mark['kind'] {
  const parts = pointer.split('/');
  if (parts.length === 4 && METHODS.includes(parts[3] ?? '')) {
    if (parts[1] === 'paths') return 'operation';
    if (parts[1] === 'webhooks') return 'webhook';
  }
  if (parts.length === 3 && parts[1] === 'tags') return 'tag';
  if (parentKey === 'parameters' || (parts.length === 4 && parts[1] === 'components' && parts[2] === 'parameters')) return 'parameter';
  return 'schema';
}

/** Keys whose values are examples or literal values, never objects of the document to mark. */
const LITERAL = new Set(['example', 'examples', 'default', 'enum', 'const']);

function walk(value: unknown, pointer: string, parentKey: string | undefined, marks: Mark[]): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => { walk(item, `${pointer}/${String(i)}`, parentKey, marks); });
    return;
  }
  if (!isNode(value)) return;
  mark(value, pointer, kindAt(pointer, parentKey), marks);
  for (const [key, child] of Object.entries(value)) {
    if (LITERAL.has(key) || key.startsWith('x-')) continue;
    walk(child, `${pointer}/${escape(key)}`, key, marks);
  }
}

/** Marks every designed object of `doc` in place and returns the marks it made. */
export function markDesigned(doc: Node): Mark[] {
  const marks: Mark[] = [];
  for (const [key, value] of Object.entries(doc)) {
    // The introduction's text is not a designed object; its magic values and tables are already the spec's.
    if (key === 'info' || key.startsWith('x-')) continue;
    walk(value, `/${escape(key)}`, key, marks);
  }
  return marks;
}
