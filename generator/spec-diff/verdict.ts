// spec:diff's verdict: the changes against the accept file and info.version, and the listing people read.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { bumpOf, RULES, type Bump, type Change } from './rules.ts';
import { isObject, type JsonObject } from './schema.ts';

/** The file of breaking changes accepted without a major version; at the root, outside spec/ (see docs/guides/contract-changes.md). */
export const ACCEPT_FILE = 'accepted-changes.yaml';

export interface Acceptance {
  id: string;
  reason: string;
}

/** The accepted changes of the file's text; a malformed file throws, naming the entry at fault. */
export function readAcceptances(text: string, file = ACCEPT_FILE): Acceptance[] {
  const doc: unknown = parseYaml(text);
  if (doc === null || doc === undefined) return [];
  const list = isObject(doc) ? doc.accepted : undefined;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new Error(`${file}: "accepted" must be a list of { id, reason }`);
  return list.map((entry: unknown, i) => {
    const at = `${file}: accepted[${String(i)}]`;
    if (!isObject(entry)) throw new Error(`${at} must be an object with "id" and "reason"`);
    const { id, reason } = entry;
    if (typeof id !== 'string' || id.trim() === '') throw new Error(`${at}: "id" must be the change id spec:diff prints`);
    if (typeof reason !== 'string' || reason.trim() === '') throw new Error(`${at} (${id}): "reason" must say why the change is accepted`);
    return { id: id.trim(), reason: reason.trim() };
  });
}

/** The accept file of the repository at `root`; none is no acceptance. */
export function loadAcceptances(root: string): Acceptance[] {
  let text: string;
  try {
    text = readFileSync(`${root}/${ACCEPT_FILE}`, 'utf8');
  } catch {
    return [];
  }
  return readAcceptances(text);
}

export interface Verdict {
  changes: Change[];
  bump: Bump;
  baseVersion: string;
  revisionVersion: string;
  /** True when the revision's info.version has a greater major than the base's. */
  majorRaised: boolean;
  /** Breaking changes the accept file names. */
  accepted: { change: Change; reason: string }[];
  /** Breaking changes neither accepted nor covered by a major version. */
  refused: Change[];
  /** Accept file entries that match no breaking change (to remove). */
  stale: Acceptance[];
  ok: boolean;
}

const versionOf = (doc: JsonObject): string => {
  const info = doc.info;
  return isObject(info) && typeof info.version === 'string' ? info.version : '';
};
const majorOf = (version: string): number => Number(/^v?(\d+)\./.exec(version)?.[1] ?? Number.NaN);

export function verdictOf(changes: Change[], base: JsonObject, revision: JsonObject, acceptances: readonly Acceptance[]): Verdict {
  const baseVersion = versionOf(base);
  const revisionVersion = versionOf(revision);
  const majorRaised = majorOf(revisionVersion) > majorOf(baseVersion);
  const reasons = new Map(acceptances.map((a) => [a.id, a.reason]));
  const breaking = changes.filter((c) => c.impact === 'breaking');
  const accepted = breaking.flatMap((change) => {
    const reason = reasons.get(change.id);
    return reason === undefined ? [] : [{ change, reason }];
  });
  const refused = majorRaised ? [] : breaking.filter((c) => !reasons.has(c.id));
  const stale = acceptances.filter((a) => !breaking.some((c) => c.id === a.id));
  return { changes, bump: bumpOf(changes), baseVersion, revisionVersion, majorRaised, accepted, refused, stale, ok: refused.length === 0 };
}

const USES_SHOWN = 3;

function line(change: Change): string {
  const more = change.uses.length > USES_SHOWN ? ` and ${String(change.uses.length - USES_SHOWN)} more` : '';
  const detail = change.detail === '' ? '' : ` (${change.detail})`;
  return `${change.id}: ${RULES[change.rule].says}${detail}; in ${change.uses.slice(0, USES_SHOWN).join(', ')}${more}`;
}

/** The listing: every change, breaking first, then what the accept file and the version say. */
export function report(verdict: Verdict, baseLabel: string, options: { full: boolean } = { full: true }): string[] {
  const { changes, refused, accepted, stale } = verdict;
  const breaking = changes.filter((c) => c.impact === 'breaking');
  const out = [`contract changes since ${baseLabel} (info.version ${verdict.baseVersion || '?'} -> ${verdict.revisionVersion || '?'}): ` +
    (changes.length === 0 ? 'none' : `${String(changes.length)}, ${String(breaking.length)} breaking; they need a ${verdict.bump} version`)];
  const shown = options.full ? changes : refused;
  for (const change of shown) out.push(`  ${change.impact === 'breaking' ? 'BREAKING  ' : 'compatible'} ${line(change)}`);
  if (!options.full && changes.length > shown.length) out.push(`  (${String(changes.length - shown.length)} more listed by npm run spec:diff)`);
  for (const { change, reason } of accepted) out.push(`  accepted in ${ACCEPT_FILE}: ${change.id} (${reason})`);
  for (const entry of stale) out.push(`  ${ACCEPT_FILE}: "${entry.id}" matches no breaking change now: remove it`);
  if (breaking.length > 0 && verdict.majorRaised) out.push(`  breaking changes allowed: info.version's major went from ${verdict.baseVersion} to ${verdict.revisionVersion}`);
  if (refused.length > 0) {
    out.push(`  ${String(refused.length)} breaking change(s) neither accepted nor covered by a new major version: raise info.version's major in ` +
      `spec/openapi.yaml, or add each id with its reason to ${ACCEPT_FILE}`);
  }
  return out;
}
