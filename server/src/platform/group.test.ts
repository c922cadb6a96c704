// groupBy: every item in its key's group, groups in the order their keys first appear, items in their order.
import { describe, expect, it } from 'vitest';
import { groupBy } from './group.ts';

describe('groupBy', () => {
  it('keeps first-seen key order and each group\'s item order', () => {
    const groups = groupBy([{ k: 'b', n: 1 }, { k: 'a', n: 2 }, { k: 'b', n: 3 }, { k: 'c', n: 4 }, { k: 'a', n: 5 }], (x) => x.k);
    expect([...groups.keys()]).toEqual(['b', 'a', 'c']);
    expect(groups.get('b')?.map((x) => x.n)).toEqual([1, 3]);
    expect(groups.get('a')?.map((x) => x.n)).toEqual([2, 5]);
    expect(groups.get('c')?.map((x) => x.n)).toEqual([4]);
  });

  it('groups nothing into no group, and 100,000 items into their groups with none lost', () => {
    expect(groupBy([], (x: number) => x).size).toBe(0);
    const items = Array.from({ length: 100_000 }, (_, i) => i);
    const groups = groupBy(items, (i) => i % 7);
    expect(groups.size).toBe(7);
    expect([...groups.values()].reduce((sum, g) => sum + g.length, 0)).toBe(100_000);
    expect(groups.get(3)?.every((i) => i % 7 === 3)).toBe(true);
  });
});
