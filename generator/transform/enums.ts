// Integer enumerations (components.schemas with an integer `enum` and `x-enum-varnames`) -> enums.ts: each as
// a `const X = { Name: id } as const` and its type, so that code names an id (AchTransactionStatus.Failed)
// instead of copying the number. Refuses an enumeration whose names and ids do not pair up one to one.
import type { GeneratedFile, Printer } from '../lib/ts.ts';
import type { JsonObject } from '../model.ts';
import { docText } from '../names.ts';

const asObject = (v: unknown): JsonObject => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {});
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export interface EnumModel {
  /** The schema name, which names the constant and its type. */
  name: string;
  /** The first sentence of the schema's description, or its title. */
  summary: string;
  /** [name, id] in the document's order. */
  members: [string, number][];
}

/** The first sentence of a description (up to its first period and space), on one line. */
function firstSentence(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const end = line.search(/\.(\s|$)/);
  return end === -1 ? line : line.slice(0, end + 1);
}

/** Reads every integer enumeration of the document that names its values, in schema order. */
export function readEnums(doc: JsonObject): EnumModel[] {
  const schemas = asObject(asObject(doc.components).schemas);
  const enums: EnumModel[] = [];
  for (const [name, raw] of Object.entries(schemas)) {
    const schema = asObject(raw);
    const ids: unknown = schema.enum;
    const names: unknown = schema['x-enum-varnames'];
    if (schema.type !== 'integer' || !Array.isArray(ids) || !Array.isArray(names)) continue;
    const named = names as unknown[];
    const fail = (message: string): never => {
      throw new Error(`${name}: ${message}`);
    };
    if (!IDENTIFIER.test(name)) fail('an enumeration name must be an identifier (it names a constant)');
    if (named.length !== ids.length) fail(`x-enum-varnames has ${String(named.length)} names for ${String(ids.length)} values`);
    const members = (ids as unknown[]).map((id, i): [string, number] => {
      const member = named[i];
      if (typeof member !== 'string' || !IDENTIFIER.test(member)) fail(`x-enum-varnames[${String(i)}] must be an identifier`);
      if (typeof id !== 'number' || !Number.isInteger(id)) fail(`enum[${String(i)}] must be an integer`);
      return [String(member), Number(id)];
    });
    if (new Set(members.map(([n]) => n)).size !== members.length) fail('x-enum-varnames names a value twice');
    const description = typeof schema.description === 'string' ? schema.description : '';
    enums.push({ name, summary: firstSentence(description) || (typeof schema.title === 'string' ? schema.title : name), members });
  }
  return enums;
}

function enumText(model: EnumModel): string {
  return `/** ${docText(model.summary)} */
export const ${model.name} = {
${model.members.map(([member, id]) => `  ${member}: ${String(id)},`).join('\n')}
} as const;
/** An id of ${model.name}. */
export type ${model.name} = (typeof ${model.name})[keyof typeof ${model.name}];`;
}

/** The generated module; undefined when the document has no named integer enumeration. */
export function transformEnums(doc: JsonObject, printer: Printer): GeneratedFile | undefined {
  const enums = readEnums(doc);
  if (enums.length === 0) return undefined;
  return printer.file('enums.ts', 'The integer enumerations of the spec (enum ids named by x-enum-varnames), as constants.', [
    ...enums.map(enumText),
    `/** Every enumeration, by its schema name (what the enumerations lookup lists). */
export const enumerations = { ${enums.map((e) => e.name).join(', ')} } as const;`,
  ]);
}
