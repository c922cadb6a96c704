// The state machine transform: rows expanded per from status with ids resolved, `same` and `initial`, the
// generated module, and a refusal for each kind of bad row (a table the server runs says only what the
// document defines).
import { describe, expect, it } from 'vitest';
import { Printer } from '../lib/ts.ts';
import type { JsonObject } from '../model.ts';
import { readStateMachines, transformStateMachines } from '../transform/state-machines.ts';

const machineDoc = (
  transitions: JsonObject[],
  triggers: JsonObject = { 'network.go': 'The network moves it.' },
  machine: JsonObject = { name: 'thing', refusal: { kind: 'responseCode', responseCode: '101' } },
  otherSchemas: JsonObject = {},
): JsonObject => ({
  openapi: '3.1.0',
  info: { title: 'T', version: '1' },
  paths: { '/things/{id}/stop': { post: { operationId: 'stopThing', responses: { '200': { description: 'ok' } } } } },
  webhooks: { 'thing.stopped': { post: { responses: { '200': { description: 'ok' } } } } },
  components: {
    schemas: {
      TransactionResponseCode: { type: 'string', enum: ['000', '101'] },
      TransactionType: { type: 'integer', enum: [1, 2], 'x-enum-varnames': ['Small', 'Big'] },
      ThingStatus: {
        type: 'integer', enum: [1, 2, 3], 'x-enum-varnames': ['Open', 'Moving', 'Stopped'],
        'x-state-machine': { ...machine, triggers, transitions },
      },
      ...otherSchemas,
    },
  },
});

const good: JsonObject = { from: ['Open', 'Moving'], trigger: 'stopThing', to: 'Stopped', responseCodes: ['000'], event: 'thing.stopped', types: ['Big'], provenance: 'seed' };
const goes: JsonObject = { from: ['Moving'], trigger: 'network.go', to: 'Open', responseCodes: [], event: null, provenance: 'designed' };

describe('readStateMachines', () => {
  it('expands a row per from status, resolves names to ids, and keeps the rest', () => {
    const [machine] = readStateMachines(machineDoc([good, { from: ['initial'], trigger: 'network.go', to: 'Open', responseCodes: [], event: null, provenance: 'designed' }]));
    expect(machine?.rows).toEqual([
      { from: 1, trigger: 'stopThing', to: 3, responseCodes: ['000'], returnCodes: null, amount: null, event: 'thing.stopped', types: [2], provenance: 'seed', note: null },
      { from: 2, trigger: 'stopThing', to: 3, responseCodes: ['000'], returnCodes: null, amount: null, event: 'thing.stopped', types: [2], provenance: 'seed', note: null },
      { from: null, trigger: 'network.go', to: 1, responseCodes: [], returnCodes: null, amount: null, event: null, types: null, provenance: 'designed', note: null },
    ]);
  });

  it('resolves `same` to each from status and keeps `removed`', () => {
    const [machine] = readStateMachines(machineDoc([
      { ...good, to: 'same', types: undefined }, { ...good, from: ['Stopped'], to: 'removed', types: undefined },
    ], {}));
    expect(machine?.rows.map((r) => [r.from, r.to])).toEqual([[1, 1], [2, 2], [3, 'removed']]);
  });

  it.each([
    ['an unknown from status', { from: ['Closed'] }, /names no status Closed/],
    ['an unknown to status', { to: 'Gone' }, /names no status Gone/],
    ['a trigger that is neither an operation nor declared', { trigger: 'network.teleport' }, /network.teleport is neither an operationId/],
    ['an unknown event', { event: 'thing.vanished' }, /event thing.vanished is no webhook/],
    ['an unknown response code', { responseCodes: ['999'] }, /response code 999/],
    ['an unknown transaction type', { types: ['Huge'] }, /names no TransactionType Huge/],
    ['no provenance', { provenance: undefined }, /has no provenance/],
    ['a provenance other than seed or designed', { provenance: 'guessed' }, /has no provenance/],
    ['no trigger', { trigger: undefined }, /has no trigger/],
    ['no from status', { from: [] }, /has no from status/],
    ['a creation that stays the same', { from: ['initial'], to: 'same' }, /cannot stay the same/],
    ['an amount that is neither partial nor remainder', { amount: 'half' }, /amount "half" is none of partial, remainder/],
  ])('refuses a row with %s, naming the schema and the row', (_name, change, message) => {
    expect(() => readStateMachines(machineDoc([good, goes, { ...good, ...change }]))).toThrow(new RegExp(`^ThingStatus x-state-machine transitions\\[2\\]( \\(\\S+\\))?: .*${message.source}`));
  });

  it.each([
    ['a refusal response code the document does not define', { refusal: { kind: 'responseCode', responseCode: '999' } }, /refusal response code 999/],
    ['a refusal of another kind', { refusal: { kind: 'teapot' } }, /refusal must be/],
    ['a refusal errorCode for a trigger the machine lacks', { refusal: { kind: 'errorCode', errorCodes: { startThing: 'thing_not_open' } } }, /errorCodes names startThing/],
    ['a refusal errorCode for a network trigger', { refusal: { kind: 'errorCode', errorCodes: { 'network.go': 'thing_not_open' } } }, /errorCodes names network.go/],
    ['a name that is no identifier', { name: 'thing-machine', refusal: { kind: 'responseCode', responseCode: '101' } }, /name thing-machine must be a camelCase identifier/],
  ])('refuses %s, naming the schema', (_name, machine, message) => {
    expect(() => readStateMachines(machineDoc([good, goes], undefined, machine))).toThrow(new RegExp(`^ThingStatus x-state-machine: .*${message.source}`));
  });

  it('refuses a declared trigger that no row uses', () => {
    expect(() => readStateMachines(machineDoc([good]))).toThrow(/^ThingStatus x-state-machine: trigger network.go is declared but no transition uses it/);
  });

  it('refuses two machines of one name', () => {
    const other = { type: 'integer', enum: [7], 'x-enum-varnames': ['Idle'], 'x-state-machine': { name: 'thing', refusal: { kind: 'responseCode', responseCode: '101' }, transitions: [] } };
    expect(() => readStateMachines(machineDoc([good, goes], undefined, undefined, { OtherStatus: other }))).toThrow(/^OtherStatus x-state-machine: name thing is taken by the state machine of ThingStatus/);
  });

  it('reads an errorCode refusal per operation trigger', () => {
    const [machine] = readStateMachines(machineDoc([good, goes], undefined, { name: 'thing', refusal: { kind: 'errorCode', errorCodes: { stopThing: 'thing_not_open' } } }));
    expect(machine?.refusal).toEqual({ kind: 'errorCode', errorCodes: { stopThing: 'thing_not_open' } });
  });
});

describe('transformStateMachines', () => {
  it('writes nothing for a document without state machines', () => {
    expect(transformStateMachines({ openapi: '3.1.0', info: { title: 'T', version: '1' }, paths: {} }, new Printer())).toBeUndefined();
  });

  it('writes each machine as typed data, with its status and trigger unions', () => {
    const file = transformStateMachines(machineDoc([good, goes]), new Printer());
    expect(file?.path).toBe('state-machines.ts');
    // The status type is the enumeration's own (enums.ts), named like the machine's: no alias of it here.
    expect(file?.content).toContain("import type { ThingStatus } from './enums.ts';");
    expect(file?.content).not.toContain('export type ThingStatus');
    expect(file?.content).toContain("export type ThingTrigger = 'stopThing' | 'network.go';");
    expect(file?.content).toContain("export type TransactionResponseCode = components['schemas']['TransactionResponseCode'];");
    expect(file?.content).toContain('} as const satisfies StateMachine<ThingStatus, ThingTrigger, TransactionResponseCode, WebhookEventName>;');
    expect(file?.content).toContain('export type ThingTransition = (typeof thingStateMachine.transitions)[number];');
    expect(file?.content).toContain('export const thingStateMachine = {');
    expect(file?.content).toContain("{ from: 1, trigger: 'stopThing', to: 3, responseCodes: ['000'], event: 'thing.stopped', types: [2], provenance: 'seed', note: null },");
    expect(file?.content).toContain("refusal: { kind: 'responseCode', responseCode: '101' },");
    expect(file?.content).toContain('export const stateMachines = [thingStateMachine] as const;');
  });

  it('writes the amount that picks a row only on rows that name one', () => {
    const file = transformStateMachines(machineDoc([{ ...good, amount: 'partial' }, goes]), new Printer());
    expect(file?.content).toContain("{ from: 1, trigger: 'stopThing', to: 3, responseCodes: ['000'], amount: 'partial', event: 'thing.stopped', types: [2], provenance: 'seed', note: null },");
    expect(file?.content).toContain("{ from: 2, trigger: 'network.go', to: 1, responseCodes: [], event: null, types: null, provenance: 'designed', note: null },");
  });
});
