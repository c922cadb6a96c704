// Gathers the changes a comparison finds: one entry per change id, with every operation and event that reaches it.
import { RULES, type Change, type RuleId, type Side } from './rules.ts';

interface Entry {
  rule: RuleId;
  side: Side;
  where: string;
  detail: string;
  uses: Set<string>;
}

export class Collector {
  private readonly entries = new Map<string, Entry>();
  /** The id sets of the shared schemas being compared right now (each change found joins all of them). */
  private readonly frames: Set<string>[] = [];

  add(rule: RuleId, side: Side, where: string, detail: string, use: string): void {
    const id = `${side}.${rule} ${where}`;
    const entry = this.entries.get(id) ?? { rule, side, where, detail, uses: new Set<string>() };
    this.entries.set(id, entry);
    entry.uses.add(use);
    for (const frame of this.frames) frame.add(id);
  }

  /** Runs `compare` with a frame open; answers the ids of the changes found within it. */
  within(compare: () => void): Set<string> {
    const frame = new Set<string>();
    this.frames.push(frame);
    try {
      compare();
    } finally {
      this.frames.pop();
    }
    for (const outer of this.frames) for (const id of frame) outer.add(id);
    return frame;
  }

  /** A shared schema compared before is reached again: its changes gain this use (and join the open frames). */
  reuse(ids: ReadonlySet<string>, use: string): void {
    for (const id of ids) {
      this.entries.get(id)?.uses.add(use);
      for (const frame of this.frames) frame.add(id);
    }
  }

  list(): Change[] {
    return [...this.entries]
      .map(([id, e]): Change => ({
        id,
        rule: e.rule,
        side: e.side,
        impact: RULES[e.rule][e.side],
        where: e.where,
        detail: e.detail,
        uses: [...e.uses].sort(),
      }))
      .sort((a, b) => (a.impact === b.impact ? a.id.localeCompare(b.id) : a.impact === 'breaking' ? -1 : 1));
  }
}
