// The table `pgw logs` prints: one line a delivery under a header, each column as wide as its widest cell.
import type { components } from '@pgw/client/types';

type Entry = Pick<components['schemas']['WebhookDeliveryLogEntry'], 'createdOn' | 'eventType' | 'status' | 'attemptNumber' | 'responseStatusCode' | 'id' | 'eventId'>;

interface Column { title: string; cell: (e: Entry) => string; right?: true }

const COLUMNS: readonly Column[] = [
  { title: 'created', cell: (e) => e.createdOn },
  { title: 'event type', cell: (e) => e.eventType },
  { title: 'status', cell: (e) => e.status },
  { title: 'try', cell: (e) => String(e.attemptNumber), right: true },
  { title: 'http', cell: (e) => String(e.responseStatusCode ?? '-'), right: true },
  { title: 'delivery id', cell: (e) => e.id },
  { title: 'event id', cell: (e) => e.eventId },
];

/**
 * The header and one line a delivery. Widths come from the cells themselves (a timestamp's length depends on
 * the server's fractional seconds), so the header always sits over its values; no line ends in spaces.
 */
export function logTable(items: readonly Entry[]): string[] {
  const rows = [COLUMNS.map((c) => c.title), ...items.map((e) => COLUMNS.map((c) => c.cell(e)))];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => {
    const width = widths[i] ?? 0;
    return COLUMNS[i]?.right ? cell.padStart(width) : cell.padEnd(width);
  }).join('  ').trimEnd());
}
