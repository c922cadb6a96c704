// What a test needs to see that schema validators compile each schema once: the functions a piece of code makes
// (ajv makes one per schema it compiles) and how many schemas a document's responses and webhooks can name.
// Shared by the generator's tests (the generated validators) and the conformance suite's (its response checks).

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** How many functions `run` makes with `new Function` (ajv makes one per schema it compiles). */
export function functionsMadeBy(run: () => void): number {
  const Original = globalThis.Function;
  let made = 0;
  globalThis.Function = new Proxy(Original, { construct: (target, args: unknown[]) => { made += 1; return Reflect.construct(target, args) as object; } });
  try {
    run();
  } finally {
    globalThis.Function = Original;
  }
  return made;
}

/** A node of the document with its local `$ref`s followed. */
export function resolveIn(doc: Json, node: unknown): unknown {
  let current = node;
  for (let i = 0; i < 20 && isObject(current) && typeof current.$ref === 'string' && current.$ref.startsWith('#/'); i++) {
    current = current.$ref.slice(2).split('/').map((k) => decodeURIComponent(k).replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((acc, k) => (isObject(acc) ? acc[k] : undefined), doc);
  }
  return current;
}

/**
 * The most functions compiling every response and webhook schema of `doc` may make when each schema compiles
 * once: one per schema of the components, and one per schema written in place.
 */
export function schemaBound(doc: Json): number {
  let inline = 0;
  const contentOf = (node: unknown): void => {
    const content = (resolveIn(doc, node) as Json | undefined)?.content;
    for (const media of Object.values(isObject(content) ? content : {})) {
      const schema = isObject(media) ? media.schema : undefined;
      if (isObject(schema) && typeof schema.$ref !== 'string') inline += 1;
    }
  };
  for (const item of Object.values(isObject(doc.paths) ? doc.paths : {})) {
    for (const op of Object.values(isObject(resolveIn(doc, item)) ? resolveIn(doc, item) as Json : {})) {
      if (isObject(op) && isObject(op.responses)) for (const response of Object.values(op.responses)) contentOf(response);
    }
  }
  for (const hook of Object.values(isObject(doc.webhooks) ? doc.webhooks : {})) {
    const post = (resolveIn(doc, hook) as Json | undefined)?.post;
    if (isObject(post)) contentOf(post.requestBody);
  }
  const components = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  return Object.keys(components).length + inline;
}
