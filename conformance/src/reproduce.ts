// Reproduction lines: a request as a bash command that sends the same bytes, the run's real secrets as variables.
import type { ExchangeRequest } from './http.ts';

/** What a variable holds, and how to set it (a shell line), when the suite knows. */
interface Secret { variable: string; what: string; setup?: string }

/**
 * The real secrets and tokens of a run (value -> variable): the credentials the suite was given, the tokens it
 * was issued, and every secret or token a response handed out. Reproduction lines and reports show these as
 * variables; any other value (a deliberately bad credential a check made up) is shown as it is.
 */
const secrets = new Map<string, Secret>();
const SECRET_KEYS = /^(access_token|refresh_token|clientSecret|client_secret|signingSecret|jwtToken|password|userPassword)$/;

export function registerSecret(value: string, variable: string, about: { what?: string; setup?: string } = {}): void {
  if (value.length >= 8 && !secrets.has(value)) secrets.set(value, { variable, what: about.what ?? 'a secret of the run', ...(about.setup === undefined ? {} : { setup: about.setup }) });
}

/** Registers the secrets and tokens a response body hands out (`ACCESS_TOKEN_3`, `CLIENT_SECRET_4`, ...). */
export function registerHandedOut(body: unknown): void {
  if (Array.isArray(body)) { body.forEach(registerHandedOut); return; }
  if (typeof body !== 'object' || body === null) return;
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === 'string' && SECRET_KEYS.test(key)) {
      registerSecret(value, `${key.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}_${String(secrets.size + 1)}`, { what: `the ${key} a response handed out during the run` });
    } else registerHandedOut(value);
  }
}

/** How a secret occurs in a text: as itself, percent-encoded (a URL path) or form-encoded (a query or form body). */
type Encoding = 'raw' | 'uri' | 'form';
type Piece = { literal: string } | { variable: string; encoding: Encoding };

const formEncode = (value: string): string => new URLSearchParams([['', value]]).toString().slice(1);

/** A text cut where registered secrets occur: literal pieces and variables (with the encoding they occur in). */
function pieces(text: string): Piece[] {
  const needles: [string, string, Encoding][] = [];
  for (const [value, { variable }] of secrets) {
    const seen = new Set<string>();
    for (const [needle, encoding] of [[value, 'raw'], [encodeURIComponent(value), 'uri'], [formEncode(value), 'form']] as const) {
      if (!seen.has(needle)) needles.push([needle, variable, encoding]);
      seen.add(needle);
    }
  }
  needles.sort((a, b) => b[0].length - a[0].length);
  const found: Piece[] = [];
  let rest = text;
  while (rest.length > 0) {
    let at = -1;
    let hit: [string, string, Encoding] | undefined;
    for (const candidate of needles) {
      const index = rest.indexOf(candidate[0]);
      if (index >= 0 && (at < 0 || index < at)) { at = index; hit = candidate; }
    }
    if (!hit) { found.push({ literal: rest }); break; }
    if (at > 0) found.push({ literal: rest.slice(0, at) });
    found.push({ variable: hit[1], encoding: hit[2] });
    rest = rest.slice(at + hit[0].length);
  }
  return found;
}

/** Literal text quoted for bash: single quotes, or $'...' when it holds control characters (tabs, newlines). */
function quote(literal: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what $'...' is for
  if (!/[\u0000-\u001f\u007f]/.test(literal)) return `'${literal.replaceAll("'", `'\\''`)}'`;
  // eslint-disable-next-line no-control-regex -- as above
  return `$'${literal.replace(/[\\']/g, (c) => `\\${c}`).replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}'`;
}

/** A secret in bash: "${VAR}", or encoded as the check encoded it (node is there wherever the suite runs). */
const ENCODERS: Record<Exclude<Encoding, 'raw'>, string> = {
  uri: 'encodeURIComponent(process.argv[1])',
  form: 'new URLSearchParams([["", process.argv[1]]]).toString().slice(1)',
};
const variableWord = (variable: string, encoding: Encoding): string =>
  (encoding === 'raw' ? `"\${${variable}}"` : `"$(node -p '${ENCODERS[encoding]}' "\${${variable}}")"`);

/** Bytes as one bash word, $'...' with every byte outside printable ASCII (and the quote, backslash) escaped. */
export function bytesWord(bytes: Uint8Array): string {
  return `$'${[...bytes].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x27 && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('')}'`;
}

/** One shell word: literal text quoted, secrets as variables, concatenated. */
export function shellWord(text: string): string {
  if (text === '') return "''";
  return pieces(text).map((p) => ('variable' in p ? variableWord(p.variable, p.encoding) : quote(p.literal))).join('');
}

/** The user:password of a Basic Authorization header that carries a real secret (sent with `curl -u`). */
function basicCredentials(name: string, value: string): string | undefined {
  const match = /^Basic ([A-Za-z0-9+/]+=*)$/.exec(value);
  if (name.toLowerCase() !== 'authorization' || !match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  if (Buffer.from(decoded, 'utf8').toString('base64') !== match[1] || !decoded.includes(':')) return undefined;
  return pieces(decoded).some((p) => 'variable' in p) ? decoded : undefined;
}

/** The URL as fetch sends it (WHATWG-normalised: dot segments resolved, a quote in a query encoded). */
function sentUrl(url: string): string {
  try { return new URL(url).href; } catch { return url; }
}

/** The texts of a request that a reproduction line carries. */
function textsOf(request: ExchangeRequest): string[] {
  const headers = Object.entries(request.headers).map(([name, value]) => basicCredentials(name, value) ?? value);
  return [sentUrl(request.url), ...headers, request.body ?? ''];
}

/** The variables a request needs set to be reproduced. */
export function variablesOf(request: ExchangeRequest): string[] {
  return [...new Set(textsOf(request).flatMap((t) => pieces(t).flatMap((p) => ('variable' in p ? [p.variable] : []))))];
}

/**
 * The request as a bash command that sends what the check sent: the same method, URL (no globbing, no path
 * normalisation by curl), headers (an empty one kept, fetch's Content-Type for a bare text body) and body bytes.
 */
export function curlOf(request: ExchangeRequest): string {
  const method = request.method.toUpperCase();
  const verb = method === 'HEAD' ? '--head' : `-X ${/^[A-Z]+$/.test(method) ? method : shellWord(method)}`;
  const parts = [`curl -sS -g --path-as-is ${verb} ${shellWord(sentUrl(request.url))}`];
  for (const [name, value] of Object.entries(request.headers)) {
    const basic = basicCredentials(name, value);
    if (basic !== undefined) parts.push(`-u ${shellWord(basic)}`);
    else parts.push(`-H ${shellWord(value === '' ? `${name};` : `${name}: ${value}`)}`);
  }
  if (request.body !== undefined) {
    // fetch labels a text body without a Content-Type as text/plain; curl would say form-urlencoded.
    if (!Object.keys(request.headers).some((name) => name.toLowerCase() === 'content-type')) parts.push("-H 'content-type: text/plain;charset=UTF-8'");
    // Bytes that are not UTF-8 are written as $'\xNN' escapes: bash passes them to curl as they are.
    parts.push(`--data-raw ${request.bodyBytes === undefined ? shellWord(request.body) : bytesWord(request.bodyBytes)}`);
  }
  return parts.join(' ');
}

/** What to do before pasting a reproduction line: per variable, a command that sets it or a comment on what it holds. */
export function setupOf(request: ExchangeRequest): string[] {
  const byVariable = new Map([...secrets.values()].map((s) => [s.variable, s]));
  const needed = variablesOf(request);
  // A token's command needs the client secret: ask for it first.
  for (const variable of [...needed]) {
    const setup = byVariable.get(variable)?.setup;
    if (setup === undefined) continue;
    for (const inner of [...setup.matchAll(/\$\{([A-Z0-9_]+)\}/g)]) if (inner[1] && !needed.includes(inner[1])) needed.unshift(inner[1]);
  }
  const ordered = [...needed.filter((v) => byVariable.get(v)?.setup === undefined), ...needed.filter((v) => byVariable.get(v)?.setup !== undefined)];
  return ordered.map((v) => {
    const secret = byVariable.get(v);
    return secret?.setup ?? `# ${v}=...: ${secret?.what ?? 'a secret of the run'}`;
  });
}

/** A text for a report: the run's secrets as ${VARIABLE}, everything else as sent. */
export function redactBody(body: string): string {
  return pieces(body).map((p) => ('variable' in p ? `\${${p.variable}}` : p.literal)).join('');
}
