// Before any check: is the API at the base URL? A wrong one is said once, with what it answered, not as dozens of failures.
import { UnreachableError } from './http.ts';
import { describeNetworkError } from './network-errors.ts';
import type { OperationInfo, Spec } from './spec.ts';
import { send, type TransportResponse } from './transport.ts';

export interface ProbeTarget {
  baseUrl: string;
  headers?: Record<string, string>;
}

/**
 * Whether an answer to a request without a token comes from the API: not a 404 or a redirect, and a refusal
 * (401, 403), JSON, or an answer the spec documents (an HTML page answering every path is not the API).
 */
function fromTheApi(spec: Spec, op: OperationInfo, status: number, contentType: string, text: string): boolean {
  if (status === 404 || (status >= 300 && status < 400)) return false;
  if (status === 401 || status === 403 || /json/.test(contentType)) return true;
  return spec.responseProblems(op.operationId, status, contentType, text === '' ? undefined : text).length === 0;
}

/**
 * Asks a few of the spec's secured routes (no path parameters) without a token: the run goes on at the first
 * answer that comes from the API. When none does, the base URL is wrong (exit 3, said before any check); a
 * network failure is said with its cause.
 */
export async function probeBaseUrl(spec: Spec, target: ProbeTarget, timeoutMs: number): Promise<void> {
  const probes = [...spec.operations.values()].filter((op) => op.secured && !op.path.includes('{'))
    .sort((a, b) => Number(b.method === 'get') - Number(a.method === 'get')).slice(0, 3);
  if (probes.length === 0) return;
  const answers: string[] = [];
  const locations: string[] = [];
  for (const op of probes) {
    const method = op.method.toUpperCase();
    const url = `${target.baseUrl}${op.path}`;
    let res: TransportResponse;
    try {
      // The transport follows no redirect: a redirect is itself the answer the probe reports.
      res = await send({ method, url, headers: { accept: 'application/json', ...target.headers }, timeoutMs });
    } catch (error) {
      throw new UnreachableError(`the target at ${target.baseUrl} cannot be reached: ${describeNetworkError(error, timeoutMs)} (${method} ${url})`);
    }
    const contentType = (res.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    if (fromTheApi(spec, op, res.status, contentType, res.text)) return;
    const location = res.headers.location;
    if (location !== undefined) locations.push(location);
    answers.push(`${method} ${op.path} -> ${String(res.status)}${contentType === '' ? '' : ` ${contentType}`}${location === undefined ? '' : ` to ${location}`}`);
  }
  const said = answers.every((a) => / -> 404\b/.test(a)) ? "none of the spec's routes exists at" : "none of the spec's routes answers as the API does at";
  const redirected = locations.length === probes.length ? `; it redirects (to ${locations[0] ?? ''}): give the URL it redirects to` : '';
  throw new UnreachableError(`the base URL looks wrong: ${said} ${target.baseUrl} (asked without a token: ${answers.join(', ')}); give the URL the API's paths start from (--base-url)${redirected}`);
}
