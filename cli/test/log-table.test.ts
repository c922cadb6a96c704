// The exact text of `pgw logs`' table: the header over its values whatever the timestamps' length.
import { describe, expect, it } from 'vitest';
import { logTable } from '../src/log-table.ts';

const entry = {
  createdOn: '2025-03-14T10:20:02.123Z', eventType: 'payment.card.captured' as const, status: 'Failed' as const, attemptNumber: 7,
  responseStatusCode: null, id: '2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b', eventId: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
};

describe('pgw logs table', () => {
  it('puts every title over its column, numbers right-aligned, no trailing spaces', () => {
    expect(logTable([entry, { ...entry, createdOn: '2025-03-14T10:21:02Z', eventType: 'payment.ach.cleared', status: 'Succeeded', attemptNumber: 1, responseStatusCode: 204 }])).toEqual([
      'created                   event type             status     try  http  delivery id                           event id',
      '2025-03-14T10:20:02.123Z  payment.card.captured  Failed       7     -  2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b  0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
      '2025-03-14T10:21:02Z      payment.ach.cleared    Succeeded    1   204  2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b  0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
    ]);
  });
});
