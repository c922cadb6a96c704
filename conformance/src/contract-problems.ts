// Problems of any response the suite sees, beyond its schema: an error body whose statusCode is not the HTTP
// status, and a header the spec fixes (`Cache-Control: no-store` on an answer carrying a token or secret) missing.
import { undocumentedFields } from './documented-fields.ts';
import type { Spec } from './spec.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function contractProblems(spec: Spec, operationId: string | undefined, status: number, headers: Pick<Headers, 'get'>, body: unknown): string[] {
  const problems: string[] = [];
  // The standard error body repeats the status (spec/schemas/common.yaml ErrorResponse): a client reading only the body must not be told otherwise.
  if (status >= 400 && isObject(body) && 'statusCode' in body && body.statusCode !== status) {
    problems.push(`error_status_code: the error body says statusCode ${JSON.stringify(body.statusCode)}, the response is ${String(status)}`);
  }
  if (operationId !== undefined && spec.operations.has(operationId)) {
    const extra = undocumentedFields(spec, operationId, status, body);
    if (extra.length > 0) problems.push(`response_schema_conformance: ${String(status)} of ${operationId} carries ${extra.slice(0, 5).join(', ')}, which its schema does not document`);
    for (const [name, value] of spec.fixedHeaders(operationId, status)) {
      const got = headers.get(name);
      // Cache-Control may list more directives (`no-store, private`); the documented one must be among them.
      const directives = (got ?? '').split(',').map((d) => d.trim().toLowerCase());
      if (!directives.includes(value.toLowerCase())) problems.push(`header_conformance: ${String(status)} of ${operationId} carries ${name}: ${value} (got ${got === null ? 'none' : JSON.stringify(got)})`);
    }
  }
  return problems;
}
