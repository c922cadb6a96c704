// Identifier helpers: turn names of the document (tags, operationIds, event types) into TypeScript names.

/** Words of a name: letters and digits of any script, split at punctuation, spaces and lower-to-upper steps. */
const words = (text: string): string[] =>
  text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);

const capital = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** `API Keys` -> `ApiKeys`, `getCustomer` -> `GetCustomer`, `payment.card.authorized` -> `PaymentCardAuthorized`. */
export function pascalCase(text: string): string {
  const result = words(text)
    .map((w) => (w === w.toUpperCase() && w.length > 1 ? capital(w.toLowerCase()) : capital(w)))
    .join('');
  return /^\p{N}/u.test(result) ? `_${result}` : result || '_';
}

/** `API Keys` -> `apiKeys`. */
export function camelCase(text: string): string {
  const pascal = pascalCase(text);
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
}

/** `API Keys` -> `api-keys`: file names of scaffolded handler modules. */
export function kebabCase(text: string): string {
  return words(text).map((w) => w.toLowerCase()).join('-') || 'default';
}

/** An ECMAScript identifier name (reserved words included: they serve as property and method names). */
export const isIdentifier = (name: string): boolean => /^[\p{ID_Start}$_][\p{ID_Continue}$\u200C\u200D]*$/u.test(name);

/**
 * The name an operation goes by in generated code: its operationId when that is an identifier; the
 * operationId camel-cased when it is not (`repos/get` -> `reposGet`, `get-stations` -> `getStations`); without
 * one, the method and the path, a parameter read as `by` it (`GET /pets/{petId}` -> `getPetsByPetId`), as
 * hey-api names them. Uniqueness is the caller's (see `uniqueNames`).
 */
export function operationName(operationId: string | undefined, method: string, path: string): string {
  if (operationId !== undefined && isIdentifier(operationId)) return operationId;
  const fromId = operationId === undefined ? '_' : camelCase(operationId);
  if (fromId !== '_') return fromId;
  return camelCase(`${method} ${path.replace(/\{([^}]*)\}/g, ' by $1 ')}`);
}

/**
 * The key two names must not share: type names are made from names by capitalising them (`get_t` and `getT`
 * both give `GetT`), and files may live on disks that ignore case.
 */
export const nameKey = (name: string): string => pascalCase(name).toLowerCase();

/**
 * Makes names unique by `nameKey`: the first of each keeps its name, later ones get `2`, `3`, … in the order
 * given. The keys in `taken` (see `nameKey`) are taken before any of `names`; the set gains the new ones.
 */
export function uniqueNames(names: readonly string[], taken: Set<string> = new Set()): string[] {
  return names.map((name) => {
    let candidate = name;
    for (let n = 2; taken.has(nameKey(candidate)); n++) candidate = `${name}${String(n)}`;
    taken.add(nameKey(candidate));
    return candidate;
  });
}

/** A valid Express route parameter name for a path parameter of the document. */
export function expressParamName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[0-9]/.test(safe) ? `_${safe}` : safe;
}

/** A single-quoted string literal for generated code. */
export const literal = (value: string): string =>
  `'${JSON.stringify(value).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;

/** A property key: bare when it is an identifier, quoted otherwise. */
export const propertyKey = (name: string): string => (isIdentifier(name) ? name : literal(name));

/** Text for a JSDoc block: no comment terminators. */
export const docText = (text: string): string => text.replaceAll('*/', '*\\/').trim();
