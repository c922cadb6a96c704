// Row ids: RFC 9562 version 7 UUIDs, their first 48 bits the milliseconds they were made, distinct, in time order.
import { describe, expect, it } from 'vitest';
import { newId } from './ids.ts';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (id: string): number => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

/** Waits (spinning) for the next millisecond of Date.now(). */
function nextMs(): void {
  const now = Date.now();
  while (Date.now() === now) { /* spin: a millisecond at most */ }
}

describe('newId', () => {
  it('is a version 7 UUID of the millisecond it was made', () => {
    for (let i = 0; i < 2000; i++) {
      const before = Date.now();
      const id = newId();
      const after = Date.now();
      expect(id).toMatch(V7);
      expect(msOf(id)).toBeGreaterThanOrEqual(before);
      expect(msOf(id)).toBeLessThanOrEqual(after);
    }
  });

  it('sorts after every id of an earlier millisecond, as text and as PostgreSQL orders uuids', () => {
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      ids.push(newId(), newId());
      nextMs();
    }
    for (let i = 2; i < ids.length; i += 2) {
      const earlier = ids.slice(0, i);
      const later = ids.slice(i);
      expect(later.every((l) => earlier.every((e) => e < l))).toBe(true);
    }
  });

  it('never repeats, and its 74 bits after the time are random', () => {
    const ids = Array.from({ length: 100_000 }, newId);
    expect(new Set(ids).size).toBe(ids.length);
    // Within one millisecond only the random part tells ids apart: every one of its hex digits varies.
    const tails = ids.map((id) => id.slice(15).replaceAll('-', ''));
    for (let digit = 0; digit < 19; digit++) {
      const seen = new Set(tails.map((t) => t[digit]));
      expect(seen.size, `digit ${String(digit)} of the random part`).toBeGreaterThan(digit === 3 ? 3 : 15);
    }
  });
});
