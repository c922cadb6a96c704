// spec:diff from end to end: the base revision's contract and the working tree's, compared and judged.
import path from 'node:path';
import { bundleFile } from '../lib/bundle.ts';
import { defaultBase, documentAt, namedBase } from './base.ts';
import { compareDocuments } from './compare.ts';
import type { JsonObject } from './schema.ts';
import { loadAcceptances, verdictOf, type Verdict } from './verdict.ts';

export type SpecDiff = { verdict: Verdict; baseLabel: string } | { problem: string; named: boolean };

/**
 * Compares the contract of `root`'s working tree (or `current`, the document already bundled from it) with the
 * one at `revision` (default: the last release tag, else where HEAD left main). `named` in a problem says
 * whether the user named the revision (an error) or the default found none (nothing to compare with).
 */
export async function specDiff(root: string, options: { revision?: string; current?: JsonObject } = {}): Promise<SpecDiff> {
  const named = options.revision !== undefined;
  const answer = options.revision === undefined ? defaultBase(root) : namedBase(root, options.revision);
  if ('problem' in answer) return { problem: answer.problem, named };
  const base = await documentAt(root, answer.base.commit);
  if ('problem' in base) return { problem: base.problem, named };
  const current = options.current ?? (await bundleFile(path.join(root, 'spec', 'openapi.yaml')));
  const changes = compareDocuments(base.doc, current);
  return { verdict: verdictOf(changes, base.doc, current, loadAcceptances(root)), baseLabel: answer.base.label };
}
