// The --check diff summary: counts and the first changed lines of a stale file.
import { describe, expect, it } from 'vitest';
import { diffSummary, lineChanges } from '../diff-summary.ts';

describe('diff summary', () => {
  it('counts added and removed lines as multisets, in file order', () => {
    expect(lineChanges('a\nb\nb\nc', 'a\nb\nc\nd\ne')).toEqual({ added: ['d', 'e'], removed: ['b'] });
  });

  it('shows the first changed lines and how many more there are', () => {
    const before = Array.from({ length: 10 }, (_, i) => `old ${String(i)}`).join('\n');
    const after = Array.from({ length: 10 }, (_, i) => `new ${String(i)}`).join('\n');
    const summary = diffSummary(before, after, 2);
    expect(summary).toEqual(['+10 -10 lines', '- old 0', '- old 1', '+ new 0', '+ new 1', '(16 more changed lines)']);
  });
});
