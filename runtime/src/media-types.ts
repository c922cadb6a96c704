// Media types as the validation compares them: parameters normalised (charset in lower case, boundary
// ignored), a response's type chosen from its Content-Type or the client's Accept, and which types are JSON.

/** `Application/JSON; Charset=UTF-8` -> `application/json; charset=utf-8` (parameters sorted, boundary dropped). */
export function normalizeMediaType(type: string): string {
  const [bare = '', ...rest] = type.split(';');
  const parameters = rest.map((p) => p.trim()).filter((p) => p.includes('=') && !/^boundary=/i.test(p))
    .map((p) => {
      const [key = '', value = ''] = p.split('=');
      const name = key.trim().toLowerCase();
      return `${name}=${name === 'charset' ? value.trim().toLowerCase() : value.trim()}`;
    }).sort();
  return [bare.trim().toLowerCase(), ...parameters].join('; ');
}

/** True for `application/json`, `application/problem+json` and the like, and for the any-type range. */
export const jsonMediaType = (type: string): boolean => /^[^/;]+\/([^;+]+\+)?json\s*(;|$)/i.test(type.trim()) || type === '*/*';

/** The documented media type a response is checked against: its Content-Type, else what the client accepts. */
export function pickMediaType(accepts: readonly string[], documented: readonly string[]): string | undefined {
  const bare = (t: string): string => (t.split(';')[0] ?? '').trim().toLowerCase();
  for (const accept of accepts) {
    if (bare(accept) === '*/*') return documented[0];
    const exact = documented.find((d) => d.toLowerCase() === accept.toLowerCase()) ?? documented.find((d) => bare(d) === bare(accept));
    if (exact) return exact;
    const wildcard = /^([a-z]+)\/\*$/.exec(bare(accept));
    if (wildcard) {
      const match = documented.find((d) => bare(d).startsWith(`${wildcard[1] ?? ''}/`));
      if (match) return match;
    }
  }
  return undefined;
}
