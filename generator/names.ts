// Identifier helpers: turn names of the document (tags, operationIds, event types) into TypeScript names.

const words = (text: string): string[] =>
  text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0);

const capital = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** `API Keys` -> `ApiKeys`, `getCustomer` -> `GetCustomer`, `payment.card.authorized` -> `PaymentCardAuthorized`. */
export function pascalCase(text: string): string {
  const result = words(text)
    .map((w) => (w === w.toUpperCase() && w.length > 1 ? capital(w.toLowerCase()) : capital(w)))
    .join('');
  return /^[0-9]/.test(result) ? `_${result}` : result || '_';
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

/** A valid Express route parameter name for a path parameter of the document. */
export function expressParamName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[0-9]/.test(safe) ? `_${safe}` : safe;
}

/** A single-quoted string literal for generated code. */
export const literal = (value: string): string =>
  `'${JSON.stringify(value).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;

/** A property key: bare when it is an identifier, quoted otherwise. */
export const propertyKey = (name: string): string => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : literal(name));

/** Text for a JSDoc block: no comment terminators. */
export const docText = (text: string): string => text.replaceAll('*/', '*\\/').trim();
