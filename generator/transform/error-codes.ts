// The document's x-error-codes (spec/data/error-codes.yaml) -> error-codes.ts: every errorCode of the error body
// with its HTTP status and meaning, as a typed table. Refuses a code that is not snake_case, a status that is
// not an HTTP error status, and a code listed twice.
import type { GeneratedFile, Printer } from '../lib/ts.ts';
import type { JsonObject } from '../model.ts';
import { literal } from '../names.ts';

const asObject = (v: unknown): JsonObject => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {});

/** The document's extension that holds the data. */
export const ERROR_CODES = 'x-error-codes';

export interface ErrorCodeModel { code: string; status: number; meaning: string }

/** Reads and checks the document's error codes, in their order; undefined when it declares none. */
export function readErrorCodes(doc: JsonObject): ErrorCodeModel[] | undefined {
  const raw = doc[ERROR_CODES];
  if (raw === undefined) return undefined;
  const codes = asObject(raw).codes;
  if (!Array.isArray(codes) || codes.length === 0) throw new Error(`${ERROR_CODES}: codes must list the error codes`);
  const seen = new Set<string>();
  return codes.map((entry: unknown, i): ErrorCodeModel => {
    const o = asObject(entry);
    const fail = (message: string): never => {
      throw new Error(`${ERROR_CODES}.codes[${String(i)}]: ${message}`);
    };
    const code = typeof o.code === 'string' && /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(o.code) ? o.code : fail('code must be a snake_case string');
    if (seen.has(code)) fail(`code ${code} is listed twice`);
    seen.add(code);
    const status = typeof o.status === 'number' && Number.isInteger(o.status) && o.status >= 400 && o.status <= 599 ? o.status : fail(`${code}: status must be an HTTP error status`);
    const meaning = typeof o.meaning === 'string' && o.meaning !== '' ? o.meaning : fail(`${code}: meaning must be a sentence`);
    return { code, status, meaning };
  });
}

/** The generated module; undefined when the document declares no error codes. */
export function transformErrorCodes(doc: JsonObject, printer: Printer): GeneratedFile | undefined {
  const codes = readErrorCodes(doc);
  if (codes === undefined) return undefined;
  return printer.file('error-codes.ts', `The errorCode values of the error body (the document's ${ERROR_CODES}, spec/data/error-codes.yaml).`, [
    `/** An errorCode of the API's error body. */
export type ErrorCode = ${codes.map((c) => literal(c.code)).join(' | ')};`,
    `/** An error code with the HTTP status it comes with and what it means. */
export interface ErrorCodeInfo {
  readonly code: ErrorCode;
  readonly status: number;
  readonly meaning: string;
}`,
    `/** Every error code of the API, in the document's order. */
export const errorCodeTable = [
${codes.map((c) => `  { code: ${literal(c.code)}, status: ${String(c.status)}, meaning: ${literal(c.meaning)} },`).join('\n')}
] as const satisfies readonly ErrorCodeInfo[];`,
  ]);
}
