// Row ids: UUIDs that begin with the time they were made (RFC 9562 version 7), so a new row's key goes to the end of its index.
import { randomUUID } from 'node:crypto';

/**
 * A new row id: an RFC 9562 version 7 UUID, 48 bits of Unix milliseconds and then 74 random bits (node's own
 * random UUID's, with its version nibble made 7). Why: a payment inserts ~8 rows, each keyed by its id in a
 * unique index (and found by it from other rows' indexes); random (version 4) keys land on a random leaf page of
 * each index, so the requests of one SQLite group commit changed as many pages as they had rows, where
 * time-ordered keys share the last page. Measured, 10 ACH debits at a time in process on a database of 10,000:
 * 13.6-15.1 -> 7.7-8.7 WAL pages a request, the commit's time 86-183 -> 44-142 us (issue 43); PostgreSQL's
 * B-trees gain alike. 74 random bits leave an id unguessable; ids that are a hosted page's address
 * (invoices, payment links) stay wholly random all the same (`randomUUID`), since they also tell when they
 * were made. The `uuid` package's v7 cost 2.9 us an id here against ~1 us for this (node's random UUIDs are
 * drawn from a kept buffer of randomness).
 */
export function newId(): string {
  const ms = Date.now();
  // As two small integers: a double's toString(16) takes V8's slow path, a small integer's does not (1.35 -> 0.95 us an id).
  const high = Math.floor(ms / 0x10000).toString(16).padStart(8, '0');
  const low = (ms % 0x10000).toString(16).padStart(4, '0');
  // 'xxxxxxxx-xxxx-4xxx-vxxx-xxxxxxxxxxxx': from the third group's second digit on, random bits and the variant.
  return `${high}-${low}-7${randomUUID().slice(15)}`;
}
