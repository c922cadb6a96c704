// The state machine transform: rows expanded per from status with ids resolved, `same` and `initial`, the
// generated module, and a refusal for each kind of bad row (a table the server runs says only what the
// document defines).
import { describe, expect, it } from 'vitest';
import { Printer } from '../lib/ts.ts';
import type { JsonObject } from '../model.ts';
import { readStateMachines, transformStateMachines } from '../transform/state-machines.ts';

const machineDoc = (transitions: JsonObject[], triggers: JsonObject = { 'network.go': 'The network moves it.' }): JsonObject => ({
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
        'x-state-machine': { name: 'thing', refusal: { kind: 'responseCode', responseCode: '101' }, triggers, transitions },
      },
    },
  },
});

const good: JsonObject = { from: ['Open', 'Moving'], trigger: 'stopThing', to: 'Stopped', responseCodes: ['000'], event: 'thing.stopped', types: ['Big'], provenance: 'seed' };

describe('readStateMachines', () => {
  it('expands a row per from status, resolves names to ids, and keeps the rest', () => {
    const [machine] = readStateMachines(machineDoc([good, { from: ['initial'], trigger: 'network.go', to: 'Open', responseCodes: [], event: null, provenance: 'designed' }]));
    expect(machine?.rows).toEqual([
      { from: 1, trigger: 'stopThing', to: 3, responseCodes: ['000'], event: 'thing.stopped', types: [2], provenance: 'seed', note: null },
      { from: 2, trigger: 'stopThing', to: 3, responseCodes: ['000'], event: 'thing.stopped', types: [2], provenance: 'seed', note: null },
      { from: null, trigger: 'network.go', to: 1, responseCodes: [], event: null, types: null, provenance: 'designed', note: null },
    ]);
  });

  it('resolves `same` to each from status and keeps `removed`', () => {
    const [machine] = readStateMachines(machineDoc([
      { ...good, to: 'same', types: undefined }, { ...good, from: ['Stopped'], to: 'removed', types: undefined },
    ]));
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
    ['no from status', { from: [] }, /has no from status/],
    ['a creation that stays the same', { from: ['initial'], to: 'same' }, /cannot stay the same/],
  ])('refuses %s, naming the schema and the row', (_name, change, message) => {
    expect(() => readStateMachines(machineDoc([good, { ...good, ...change }]))).toThrow(new RegExp(`ThingStatus x-state-machine, transition 1: .*${message.source}`));
  });
});

describe('transformStateMachines', () => {
  it('writes nothing for a document without state machines', () => {
    expect(transformStateMachines({ openapi: '3.1.0', info: { title: 'T', version: '1' }, paths: {} }, new Printer())).toBeUndefined();
  });

  it('writes each machine as typed data', () => {
    const file = transformStateMachines(machineDoc([good]), new Printer());
    expect(file?.path).toBe('state-machines.ts');
    expect(file?.content).toContain('export const thingStateMachine = {');
    expect(file?.content).toContain("{ from: 1, trigger: 'stopThing', to: 3, responseCodes: ['000'], event: 'thing.stopped', types: [2], provenance: 'seed', note: null },");
    expect(file?.content).toContain("refusal: { kind: 'responseCode', responseCode: '101' },");
    expect(file?.content).toContain('} as const satisfies StateMachine;');
    expect(file?.content).toContain('export const stateMachines = [thingStateMachine] as const;');
  });
});
