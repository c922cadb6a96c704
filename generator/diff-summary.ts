// What changed in a generated file, in a few lines: how many lines were added and removed, and the first of
// each, so `--check` says what is stale rather than only which file.

/** Lines of `after` not in `before` and lines of `before` not in `after`, counted as multisets, in file order. */
export function lineChanges(before: string, after: string): { added: string[]; removed: string[] } {
  const count = (lines: string[]): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
    return counts;
  };
  const oldLines = before.split('\n');
  const newLines = after.split('\n');
  const unmatched = (lines: string[], other: Map<string, number>): string[] =>
    lines.filter((line) => {
      const left = other.get(line) ?? 0;
      if (left === 0) return true;
      other.set(line, left - 1);
      return false;
    });
  return { added: unmatched(newLines, count(oldLines)), removed: unmatched(oldLines, count(newLines)) };
}

/** `+3 -1 lines`, then up to `max` removed and added lines (each cut to 120 characters). */
export function diffSummary(before: string, after: string, max = 6): string[] {
  const { added, removed } = lineChanges(before, after);
  const cut = (line: string): string => (line.trim().length > 120 ? `${line.trim().slice(0, 117)}...` : line.trim());
  const shown = [...removed.slice(0, max).map((l) => `- ${cut(l)}`), ...added.slice(0, max).map((l) => `+ ${cut(l)}`)];
  const more = Math.max(0, removed.length - max) + Math.max(0, added.length - max);
  return [`+${String(added.length)} -${String(removed.length)} lines`, ...shown, ...(more > 0 ? [`(${String(more)} more changed lines)`] : [])];
}
