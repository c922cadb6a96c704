// spec:diff's classification on mutations of the current contract, and its verdict (accept file, major version).
import { describe, expect, it } from 'vitest';
import { loadBundle } from '../../spec/test/bundled.ts';
import { compareDocuments } from './compare.ts';
import type { Change } from './rules.ts';
import type { JsonObject } from './schema.ts';
import { readAcceptances, report, verdictOf } from './verdict.ts';

const current = loadBundle();

/** The parts of the bundled document the mutations touch. */
interface Schema {
  type?: unknown;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  maxLength?: number;
}
interface Doc {
  info: { version: string };
  paths: Record<string, Record<string, JsonObject>>;
  webhooks: Record<string, { post: JsonObject }>;
  components: { schemas: Record<string, Schema> };
}
type Mutation = (doc: Doc) => void;

/** A named part that must exist: a wrong name fails the test here rather than passing unnoticed. */
function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the bundled document has no ${what}`);
  return value;
}
const schema = (doc: Doc, name: string): Schema => must(doc.components.schemas[name], `schema ${name}`);
const property = (s: Schema, name: string): Schema => must(s.properties?.[name], `property ${name}`);
const values = (s: Schema): unknown[] => must(s.enum, 'enum');
function removeProperty(s: Schema, name: string): void {
  Reflect.deleteProperty(must(s.properties, 'properties'), name);
  s.required = (s.required ?? []).filter((n) => n !== name);
}
function addProperty(s: Schema, name: string, required: boolean): void {
  s.properties = { ...s.properties, [name]: { type: 'string' } };
  if (required) s.required = [...(s.required ?? []), name];
}

function mutated(mutate: Mutation): JsonObject {
  const revision = structuredClone(current);
  mutate(revision as unknown as Doc);
  return revision;
}
const changesOf = (mutate: Mutation): Change[] => compareDocuments(current, mutated(mutate));

const ids = (changes: readonly Change[]): string[] => changes.map((c) => `${c.impact} ${c.id}`);
const breaking = (changes: readonly Change[]): Change[] => changes.filter((c) => c.impact === 'breaking');

/** Adds an event type the way an API owner does: its webhook, and its name in the event type enumeration. */
function addEvent(doc: Doc): void {
  const event = structuredClone(must(doc.webhooks['terminal.out_of_paper'], 'event'));
  event.post.operationId = 'onTerminalPaperLow';
  doc.webhooks['terminal.paper_low'] = event;
  values(schema(doc, 'WebhookEventType')).push('terminal.paper_low');
}

describe('spec:diff classification', () => {
  it('finds no change between a document and its copy', () => {
    expect(changesOf(() => undefined)).toEqual([]);
  });

  describe('breaking', () => {
    it('a removed response field', () => {
      const changes = changesOf((doc) => {
        removeProperty(schema(doc, 'Customer'), 'companyName');
      });
      expect(ids(changes)).toEqual(['breaking response.property-removed Customer.companyName']);
      expect(changes[0]?.uses).toContain('GET /pay-api/v1/customers/{customerId}');
    });

    it('a narrowed enum a client sends (and where the gateway answers it, narrowing is compatible)', () => {
      const changes = changesOf((doc) => {
        schema(doc, 'TerminalPaperStatus').enum = ['Ok', 'Empty'];
      });
      expect(ids(changes)).toEqual([
        'breaking request.enum-value-removed TerminalPaperStatus',
        'compatible response.enum-value-removed TerminalPaperStatus',
      ]);
      expect(changes[0]?.uses).toEqual(['GET /pay-api/v1/terminals', 'POST /sandbox/v1/terminals/{terminalId}/paper-status']);
      expect(changes[1]?.uses).toContain('webhook terminal.out_of_paper');
    });

    it('a new required request field', () => {
      const changes = changesOf((doc) => {
        addProperty(schema(doc, 'TerminalRegistration'), 'location', true);
      });
      expect(ids(changes)).toEqual(['breaking request.property-added-required TerminalRegistration.location']);
    });

    it('a removed webhook payload field', () => {
      const changes = changesOf((doc) => {
        removeProperty(schema(doc, 'WebhookSettlementBatch'), 'transactionCount');
      });
      expect(ids(changes)).toEqual(['breaking response.property-removed WebhookSettlementBatch.transactionCount']);
      expect(changes[0]?.uses).toEqual(['webhook settlement.batch.completed']);
    });

    it('a retyped webhook payload field', () => {
      const changes = changesOf((doc) => {
        property(schema(doc, 'WebhookSettlementBatch'), 'transactionCount').type = 'string';
      });
      expect(ids(changes)).toEqual(['breaking response.type-changed WebhookSettlementBatch.transactionCount']);
    });

    it('a webhook payload field that may now be null', () => {
      const changes = changesOf((doc) => {
        property(schema(doc, 'WebhookSettlementBatch'), 'transactionCount').type = ['integer', 'null'];
      });
      expect(ids(changes)).toEqual(['breaking response.nullable-added WebhookSettlementBatch.transactionCount']);
    });

    it('a removed event type (its webhook and its name in the enumeration)', () => {
      const changes = changesOf((doc) => {
        Reflect.deleteProperty(doc.webhooks, 'terminal.out_of_paper');
        const types = schema(doc, 'WebhookEventType');
        types.enum = values(types).filter((name) => name !== 'terminal.out_of_paper');
      });
      expect(ids(breaking(changes))).toEqual([
        'breaking request.enum-value-removed WebhookEventType',
        'breaking response.event-removed terminal.out_of_paper',
      ]);
    });

    it('a new value in an enum the gateway answers (strict readers refuse it)', () => {
      const changes = changesOf((doc) => {
        values(schema(doc, 'TerminalPaperStatus')).push('Jammed');
      });
      expect(ids(changes)).toEqual([
        'breaking response.enum-value-added TerminalPaperStatus',
        'compatible request.enum-value-added TerminalPaperStatus',
      ]);
    });

    it('a tighter limit on what a client sends', () => {
      const changes = changesOf((doc) => {
        property(schema(doc, 'TerminalRegistration'), 'name').maxLength = 10;
      });
      expect(ids(changes)).toEqual(['breaking request.constraint-tightened TerminalRegistration.name:maxLength']);
    });

    it('a removed operation and a renamed operationId', () => {
      const changes = changesOf((doc) => {
        Reflect.deleteProperty(must(doc.paths['/pay-api/v1/terminals/{terminalId}'], 'path'), 'get');
        must(doc.paths['/pay-api/v1/terminals']?.get, 'operation').operationId = 'listAllTerminals';
      });
      expect(ids(changes)).toEqual([
        'breaking request.operation-id-changed GET /pay-api/v1/terminals',
        'breaking request.operation-removed GET /pay-api/v1/terminals/{terminalId}',
      ]);
    });
  });

  describe('compatible', () => {
    it('an added optional field, in a request and in a response', () => {
      const changes = changesOf((doc) => {
        addProperty(schema(doc, 'TerminalRegistration'), 'location', false);
        addProperty(schema(doc, 'Customer'), 'nickname', false);
      });
      expect(ids(changes)).toEqual(['compatible request.property-added TerminalRegistration.location', 'compatible response.property-added Customer.nickname']);
    });

    it('a new required field in a webhook payload (receivers read what they know)', () => {
      const changes = changesOf((doc) => {
        addProperty(schema(doc, 'WebhookSettlementBatch'), 'feeAmount', true);
      });
      expect(ids(changes)).toEqual(['compatible response.property-added-required WebhookSettlementBatch.feeAmount']);
    });

    it('a new operation', () => {
      const changes = changesOf((doc) => {
        const read = must(doc.paths['/pay-api/v1/terminals/{terminalId}']?.get, 'operation');
        doc.paths['/pay-api/v1/terminals/{terminalId}/ping'] = { post: { ...structuredClone(read), operationId: 'pingTerminal' } };
      });
      expect(ids(changes)).toEqual(['compatible request.operation-added POST /pay-api/v1/terminals/{terminalId}/ping']);
    });

    it('a new event type, listed in the event type enumeration too', () => {
      const changes = changesOf(addEvent);
      expect(breaking(changes)).toEqual([]);
      expect(ids(changes)).toContain('compatible response.event-added terminal.paper_low');
      expect(ids(changes)).toContain('compatible response.event-type-value-added WebhookEventType');
    });

    it('a value removed from an enum only the gateway sends', () => {
      const changes = changesOf((doc) => {
        schema(doc, 'PaymentProcessorType').enum = [1];
      });
      expect(breaking(changes)).toEqual([]);
      expect(ids(changes)).toContain('compatible response.enum-value-removed PaymentProcessorType');
    });
  });
});

describe('spec:diff verdict', () => {
  const removeField: Mutation = (doc) => {
    removeProperty(schema(doc, 'WebhookSettlementBatch'), 'transactionCount');
  };
  const ID = 'response.property-removed WebhookSettlementBatch.transactionCount';

  function verdict(mutate: Mutation, acceptFile: string, version?: string): ReturnType<typeof verdictOf> {
    const revision = mutated((doc) => {
      mutate(doc);
      if (version !== undefined) doc.info.version = version;
    });
    return verdictOf(compareDocuments(current, revision), current, revision, readAcceptances(acceptFile));
  }

  it('fails on a breaking change neither accepted nor under a new major version', () => {
    const v = verdict(removeField, 'accepted: []');
    expect([v.ok, v.bump, v.refused.map((c) => c.id)]).toEqual([false, 'major', [ID]]);
    expect(report(v, 'main').join('\n')).toMatch(/1 breaking change\(s\) neither accepted nor covered by a new major version/);
  });

  it('passes once the change is accepted with a reason', () => {
    const v = verdict(removeField, `accepted:\n  - id: ${ID}\n    reason: no receiver reads it yet\n`);
    expect([v.ok, v.refused, v.accepted.map((a) => a.reason)]).toEqual([true, [], ['no receiver reads it yet']]);
  });

  it("passes once info.version's major is raised, and not for a minor one", () => {
    expect(verdict(removeField, '', '2.0.0').ok).toBe(true);
    expect(verdict(removeField, '', '1.1.0').ok).toBe(false);
  });

  it('passes with compatible changes only, and reports accept entries that match nothing', () => {
    const v = verdict(addEvent, `accepted:\n  - id: ${ID}\n    reason: an old acceptance\n`);
    expect([v.ok, v.bump, v.stale.map((a) => a.id)]).toEqual([true, 'minor', [ID]]);
    expect(report(v, 'main').join('\n')).toContain(`"${ID}" matches no breaking change now: remove it`);
  });

  it('refuses an accept entry without a reason, naming it', () => {
    expect(() => readAcceptances(`accepted:\n  - id: ${ID}\n`)).toThrow(`accepted-changes.yaml: accepted[0] (${ID}): "reason" must say why the change is accepted`);
    expect(() => readAcceptances('accepted: yes')).toThrow('"accepted" must be a list');
  });
});
