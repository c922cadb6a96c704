// Error classification: whatever body parsing, route matching or validation raised, as one problem shape
// (status, kind, where and what), for an error handler to answer in the API's own terms.

/** Where a request problem was found. */
export type ProblemLocation = 'body' | 'query' | 'path' | 'headers' | 'response' | 'request';

/** A request or response problem found by the router, in one shape whatever raised it. */
export interface RouterProblem {
  status: number;
  kind:
    | 'validation'
    | 'malformed_json'
    | 'not_found'
    | 'method_not_allowed'
    | 'unsupported_media_type'
    | 'payload_too_large'
    | 'response_validation';
  message: string;
  /** Each offending value: where, its dotted path (`billingAddress.city`, `items.0.name`), the message. */
  problems: { location: ProblemLocation; path: string; message: string; keyword: string | undefined }[];
  /** For 405: the methods the path allows. */
  allow: string | undefined;
}

interface ValidatorErrorLike {
  status: number;
  message: string;
  errors?: { path: string; message: string; errorCode?: string }[];
  headers?: { Allow?: string };
}

const isValidatorError = (err: unknown): err is ValidatorErrorLike =>
  typeof err === 'object' && err !== null && 'status' in err && typeof (err).status === 'number' &&
  'message' in err;

/** `/body/billingAddress/city` or `.body.billingAddress.city` -> location `body`, path `billingAddress.city`. */
function splitPath(raw: string): { location: ProblemLocation; path: string } {
  const parts = raw.replace(/^[./]/, '').split(/[./]/).filter((p) => p.length > 0);
  const head = parts[0] ?? '';
  const known: Record<string, ProblemLocation> = { body: 'body', query: 'query', params: 'path', path: 'path', headers: 'headers', response: 'response' };
  const location = known[head];
  return location ? { location, path: parts.slice(1).join('.') } : { location: 'request', path: parts.join('.') };
}

/** The most problems one refused request reports. */
export const MAX_PROBLEMS = 50;

/** Classifies an error raised by body parsing or validation; undefined for any other error. */
export function routerProblem(err: unknown): RouterProblem | undefined {
  if (typeof err === 'object' && err !== null && (err as { type?: unknown }).type === 'entity.parse.failed') {
    return { status: 400, kind: 'malformed_json', message: 'The request body is not valid JSON.', problems: [], allow: undefined };
  }
  if (typeof err === 'object' && err !== null && (err as { type?: unknown }).type === 'entity.encoding.invalid') {
    return { status: 400, kind: 'malformed_json', message: (err as { message?: string }).message ?? 'The request body is not valid UTF-8.', problems: [], allow: undefined };
  }
  if (typeof err === 'object' && err !== null && (err as { type?: unknown }).type === 'entity.too.large') {
    return { status: 413, kind: 'payload_too_large', message: 'The request body is too large.', problems: [], allow: undefined };
  }
  if (typeof err === 'object' && err !== null && (err as { type?: unknown }).type === 'parameters.too.many') {
    return { status: 413, kind: 'payload_too_large', message: 'The request body has too many fields.', problems: [], allow: undefined };
  }
  if (!isValidatorError(err)) return undefined;
  // Bounded: a body of many bad items reports its first MAX_PROBLEMS problems.
  const problems = (err.errors ?? []).slice(0, MAX_PROBLEMS).map((e) => ({
    ...splitPath(e.path),
    message: e.message,
    keyword: e.errorCode?.replace(/\.openapi\.(validation|requestValidation)$/, ''),
  }));
  const allow = err.headers?.Allow;
  switch (err.status) {
    case 404: return { status: 404, kind: 'not_found', message: err.message, problems, allow: undefined };
    case 405: return { status: 405, kind: 'method_not_allowed', message: err.message, problems, allow };
    case 415: return { status: 415, kind: 'unsupported_media_type', message: err.message, problems, allow: undefined };
    case 413: return { status: 413, kind: 'payload_too_large', message: err.message, problems, allow: undefined };
    case 400: return { status: 400, kind: 'validation', message: err.message, problems, allow: undefined };
    case 500:
      if (problems.some((p) => p.location === 'response') || err.message.includes('.response')) {
        return { status: 500, kind: 'response_validation', message: err.message, problems, allow: undefined };
      }
      return undefined;
    default: return undefined;
  }
}
