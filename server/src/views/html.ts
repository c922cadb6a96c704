// The one escape helper of the server-rendered pages: the `html` tag escapes every value put into a template
// unless it is already markup made by this tag (Html), so a page cannot show a value as markup by mistake.
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML: every character that could start markup or end an attribute is an entity. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

function render(value: Value): string {
  if (value instanceof Html) return value.text;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** A template of markup: the literal parts are markup, every value is escaped (arrays joined). */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => { out += render(value) + (strings[i + 1] ?? ''); });
  return new Html(out);
}

/** An ISO time as shown: date and time to the second, UTC. */
export const formatTime = (text: string | null): string => (text === null ? '' : text.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC').replace(/Z$/, ' UTC'));
