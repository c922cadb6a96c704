// The rule table of spec:diff: every kind of client-facing change, and whether it breaks clients on each side.
//
// The side is who reads what changed. `request`: what a client sends (parameters, request bodies), read by
// the gateway. `response`: what the gateway sends, read by clients (response bodies and headers) and by
// webhook receivers (event payloads and their headers). A request may only widen and a response may only
// narrow (oasdiff's and openapi-diff's convention): a new enum value or a looser limit in a response or a
// payload breaks a strict reader (the generated types are closed unions, and a receiver that validates
// events against the contract refuses the value), while the same change in a request breaks nobody.

export type Side = 'request' | 'response';
export type Impact = 'breaking' | 'compatible';

export interface Rule {
  readonly request: Impact;
  readonly response: Impact;
  /** What happened, for the listing: "property removed". */
  readonly says: string;
}

const both = (impact: Impact, says: string): Rule => ({ request: impact, response: impact, says });
/** A change that lets fewer values through: breaks what clients send, not what they read. */
const narrows = (says: string): Rule => ({ request: 'breaking', response: 'compatible', says });
/** A change that lets more values through: breaks what clients read, not what they send. */
const widens = (says: string): Rule => ({ request: 'compatible', response: 'breaking', says });

export const RULES = {
  // Operations and events (their side is fixed: `operation` rules are about what the client calls).
  'operation-removed': both('breaking', 'operation removed'),
  'operation-added': both('compatible', 'operation added'),
  'operation-id-changed': both('breaking', 'operationId changed (the generated client method is renamed)'),
  'security-narrowed': both('breaking', 'a way to authenticate removed or a requirement added'),
  'security-widened': both('compatible', 'a way to authenticate added'),
  'event-removed': both('breaking', 'event type removed: receivers no longer get it'),
  'event-added': both('compatible', 'event type added (receivers ignore types they do not handle)'),
  // Parameters, bodies, responses and headers.
  'parameter-removed': both('breaking', 'parameter removed'),
  'parameter-added-required': both('breaking', 'required parameter added'),
  'parameter-added': both('compatible', 'optional parameter added'),
  'parameter-became-required': both('breaking', 'parameter became required'),
  'parameter-became-optional': both('compatible', 'parameter became optional'),
  'body-added-required': both('breaking', 'required request body added'),
  'body-added': both('compatible', 'optional request body added'),
  'body-removed': both('breaking', 'request body removed'),
  'body-became-required': both('breaking', 'request body became required'),
  'body-became-optional': both('compatible', 'request body became optional'),
  'media-type-removed': both('breaking', 'media type removed'),
  'media-type-added': both('compatible', 'media type added'),
  'success-status-removed': both('breaking', 'success response removed'),
  'error-status-removed': both('compatible', 'error response removed'),
  'status-added': both('compatible', 'response status added'),
  'header-removed': both('breaking', 'header removed'),
  'header-added': both('compatible', 'header added'),
  // Schemas (side-dependent).
  'property-removed': both('breaking', 'property removed'),
  'property-added-required': { request: 'breaking', response: 'compatible', says: 'required property added' },
  'property-added': both('compatible', 'optional property added'),
  'property-became-required': narrows('property became required'),
  'property-became-optional': widens('property became optional (may be absent)'),
  'enum-value-removed': narrows('enum value removed'),
  'enum-value-added': widens('enum value added'),
  'event-type-value-added': both('compatible', 'new event type listed (the event added)'),
  'enum-introduced': narrows('values limited to an enum'),
  'enum-dropped': widens('enum limit dropped'),
  'type-narrowed': narrows('type narrowed'),
  'type-widened': widens('type widened'),
  'nullable-added': widens('became nullable'),
  'nullable-removed': narrows('no longer nullable'),
  'type-changed': both('breaking', 'type changed'),
  'format-added': narrows('format added'),
  'format-removed': widens('format removed'),
  'format-changed': both('breaking', 'format changed'),
  'constraint-tightened': narrows('limit tightened'),
  'constraint-loosened': widens('limit loosened'),
  'constraint-changed': both('breaking', 'limit changed'),
  'additional-properties-refused': narrows('unknown properties now refused'),
  'additional-properties-allowed': widens('unknown properties now allowed'),
  'variant-removed': narrows('oneOf/anyOf variant removed'),
  'variant-added': widens('oneOf/anyOf variant added'),
  'composition-changed': both('breaking', 'schema composition changed (oneOf/anyOf added or removed)'),
} as const satisfies Record<string, Rule>;

export type RuleId = keyof typeof RULES;

/** One client-facing change, as listed and as the accept file names it (`id`). */
export interface Change {
  /** Stable key: `<side>.<rule> <where>`, e.g. `response.property-removed Customer.companyName`. */
  readonly id: string;
  readonly rule: RuleId;
  readonly side: Side;
  readonly impact: Impact;
  /** Where in the contract: a schema location (`Customer.companyName`), an operation, a parameter, an event. */
  readonly where: string;
  /** Extra words for the reader (the values added, the old and new limit); not part of the id. */
  readonly detail: string;
  /** The operations and events that reach it (`GET /path 200`, `webhook invoice.paid`), sorted. */
  readonly uses: readonly string[];
}

/** The version bump a set of changes needs: major for a breaking one, minor for any other, none without. */
export type Bump = 'major' | 'minor' | 'none';

export function bumpOf(changes: readonly Pick<Change, 'impact'>[]): Bump {
  if (changes.some((c) => c.impact === 'breaking')) return 'major';
  return changes.length > 0 ? 'minor' : 'none';
}
