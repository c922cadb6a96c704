// Builds docs/index.html: one self-contained Redoc page (scripts inlined) that renders offline. The state
// machines the spec declares (x-state-machine on status schemas) are published as tables in a "State
// machines" section of the page, and designed parts are marked (docs-marks.ts), both written from the
// bundled document at build time.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readStateMachines, type StateMachineModel, type StatusId } from '../generator/transform/state-machines.ts';
import { markDesigned } from './docs-marks.ts';
import { root, runBin } from './lib/run.ts';

const output = path.join(root, 'docs', 'index.html');

const cell = (text: string): string => text.replaceAll('|', '\\|');

/** What a row's `amount` says the command asks for, as the trigger cell shows it. */
const AMOUNT_TEXT = { partial: 'a part of what remains', remainder: 'all that remains, or no amount' } as const;

/**
 * One machine's table rows as Markdown cells: from, trigger (with the return codes or the amount that pick it),
 * to, response code, event, provenance (status names, not ids).
 */
export function stateMachineRows(machine: StateMachineModel): string[][] {
  const names = new Map(machine.statuses.map(([name, id]) => [id, name]));
  // A string enumeration's status is its own name; an integer one's shows its name and id.
  const status = (id: StatusId | null): string => (id === null ? '(none: created)' : id === 'removed' ? '(removed)'
    : typeof id === 'string' ? id : `${names.get(id) ?? ''} (${String(id)})`);
  const picks = (r: StateMachineModel['rows'][number]): string => (r.returnCodes !== null ? ` (returns ${r.returnCodes.map((c) => `\`${c}\``).join(', ')})`
    : r.amount !== null ? ` (${AMOUNT_TEXT[r.amount]})` : '');
  return machine.rows.map((r) => [status(r.from), `\`${r.trigger}\`${picks(r)}`, status(r.to), r.responseCodes.map((c) => `\`${c}\``).join(', ') || 'unchanged',
    r.event === null ? '-' : `\`${r.event}\``, `${r.provenance}${r.note === null ? '' : `: ${cell(r.note)}`}`]);
}

/** One machine as Markdown: its rows, then its network and time triggers. */
export function stateMachineMarkdown(machine: StateMachineModel): string {
  const refusal = machine.refusal.kind === 'responseCode'
    ? `A trigger with no row for the status answers HTTP 200 with responseCode \`${machine.refusal.responseCode}\` and changes nothing.`
    : `A trigger with no row for the status answers 400 with its errorCode and changes nothing: ${Object.entries(machine.refusal.errorCodes).map(([trigger, code]) => `\`${trigger}\`: \`${code}\``).join(', ')}.`;
  // The machine's name in words (terminalPaper: Terminal paper), ACH in capitals.
  const words = machine.name === 'ach' ? 'ACH' : machine.name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`).replace(/^./, (c) => c.toUpperCase());
  const lines = [
    `### ${words} (${machine.schema})`,
    '',
    refusal,
    '',
    '| From | Trigger | To | Response code | Event | Provenance |',
    '|---|---|---|---|---|---|',
    ...stateMachineRows(machine).map((cells) => `| ${cells.join(' | ')} |`),
    '',
    ...machine.triggers.map(([name, text]) => `- \`${name}\`: ${text}`),
  ];
  return lines.join('\n');
}

/**
 * The page records the SHA-256 of the bundled document it was built from (compact JSON, as JSON.stringify
 * writes it) in `<meta name="pgw-spec-sha256">`: `--if-stale` and the server compare it with the spec's.
 */
export const STAMP = /<meta name="pgw-spec-sha256" content="([0-9a-f]{64})">/;
export const specHash = (doc: unknown): string => createHash('sha256').update(JSON.stringify(doc)).digest('hex');

/**
 * The page also records the SHA-256 of the files the bundle is made from (spec/ but dist/ and test/, and
 * redocly.yaml) in `<meta name="pgw-spec-sources-sha256">`: `--if-stale` compares it before bundling, so that
 * `npm start` with nothing changed neither bundles nor builds (bundling alone took ~2 s).
 */
export const SOURCES_STAMP = /<meta name="pgw-spec-sources-sha256" content="([0-9a-f]{64})">/;
export function specSourcesHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string): string[] => readdirSync(dir, { withFileTypes: true })
    .filter((e) => !(e.isDirectory() && (e.name === 'dist' || e.name === 'test')))
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : /\.(ya?ml|json|md)$/.test(e.name) ? [path.join(dir, e.name)] : []));
  for (const file of [...walk(path.join(root, 'spec')).sort(), path.join(root, 'redocly.yaml')]) {
    hash.update(path.relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/**
 * Redoc 3 draws its "API docs by Redocly" badge from cdn.redoc.ly: offline (the page's purpose) the image fails
 * and the badge is left broken. The page names local images instead, drawn here (a wordmark in plain text,
 * the attribution and its link to redocly.com kept); the build fails if the bundle names any other CDN file.
 */
const svg = (width: number, body: string): string =>
  `data:image/svg+xml;base64,${Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${String(width)}" height="20" viewBox="0 0 ${String(width)} 20">${body}</svg>`).toString('base64')}`;
const word = (text: string): string => `<text x="1" y="15" font-family="Helvetica,Arial,sans-serif" font-size="15" font-weight="700" fill="#ff5e5b">${text}</text>`;
export const LOCAL_LOGOS: Readonly<Record<string, string>> = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': svg(66, word('Redocly')),
  'https://cdn.redoc.ly/redoc/logo-mini.svg': svg(14, word('R')),
};

/** The page with Redoc's CDN images replaced by local ones; throws when the page names another CDN file. */
export function withLocalImages(page: string): string {
  let local = page;
  for (const [remote, data] of Object.entries(LOCAL_LOGOS)) local = local.replaceAll(remote, data);
  const left = /https:\/\/cdn\.redoc\.ly\/[^\s"'`)]*/.exec(local);
  if (left) throw new Error(`the docs page would load ${left[0]} from the network: give it a local image in scripts/docs.ts (LOCAL_LOGOS)`);
  return local;
}

/**
 * Redocly CLI's notices that say nothing about this build: on Node.js 20 (which these machines run, and which
 * the installed CLI supports: its engines accept >=20.19.0) a box says future releases will need Node.js 22, and
 * `build-docs` announces it renders with Redoc 3 (the page is built for Redoc 3). docs/guides/development.md explains both.
 */
const QUIET_NOTICES = [/Node\.js 20 support is ending/, /build-docs now renders docs with Redoc 3/];

/** Redocly's output without the boxes of the notices above (a box: from a `╔` line to its `╚` line). */
export function withoutNotices(output: string): string {
  // A box with the blank lines Redocly writes around it.
  const boxes = /\n*[^\S\n]*╔[^\n]*\n(?:[^\n]*\n)*?[^\S\n]*╚[^\n]*(?:\n+|$)/g;
  return output.replace(boxes, (box) => (QUIET_NOTICES.some((n) => n.test(box)) ? '' : box));
}

/** Runs Redocly's build-docs, its notices above left out of what it prints; fails loudly when it fails. */
function buildDocs(args: readonly string[]): void {
  const result = spawnSync(path.join(root, 'node_modules', '.bin', 'redocly'), ['build-docs', ...args], {
    cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  process.stdout.write(withoutNotices(result.stdout));
  process.stderr.write(withoutNotices(result.stderr));
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`redocly build-docs exited with ${String(result.status)}`);
}

/** Redoc's side menu drops inline code from a heading ("Response codes (designed, except"): headings get plain text. */
export function plainHeadings(markdown: string): string {
  return markdown.replace(/^(#{1,6} .*)$/gm, (heading) => heading.replace(/`([^`]*)`/g, '$1'));
}

/** The page with its stamps after `<head>`. */
function stamped(page: string, stamps: { hash?: string; sources: string }): string {
  const metas = [
    ...(stamps.hash === undefined ? [] : [`<meta name="pgw-spec-sha256" content="${stamps.hash}">`]),
    `<meta name="pgw-spec-sources-sha256" content="${stamps.sources}">`,
  ];
  return page.replace(/<head>/i, `<head>\n${metas.join('\n')}`);
}

function main(): void {
  // `--if-missing`: keep a page that is already built; `--if-stale` (before `npm start`): rebuild only when
  // the page was built from another spec than the current one.
  if (process.argv.includes('--if-missing') && existsSync(output)) return;
  const ifStale = process.argv.includes('--if-stale');
  if (ifStale && existsSync(output) && existsSync(path.join(root, 'spec', 'dist', 'openapi.json'))
    && SOURCES_STAMP.exec(readFileSync(output, 'utf8'))?.[1] === specSourcesHash()) return;
  runBin('tsx', ['scripts/bundle.ts']);
  // After bundling: the bundle step writes spec/description.md's data sections.
  const sources = specSourcesHash();
  const doc = JSON.parse(readFileSync(path.join(root, 'spec', 'dist', 'openapi.json'), 'utf8')) as { info: { description?: string } };
  const hash = specHash(doc);
  if (ifStale && existsSync(output)) {
    const page = readFileSync(output, 'utf8');
    if (STAMP.exec(page)?.[1] === hash) {
      // Built from this document, but before the sources stamp (or from an equal document): stamp it.
      if (SOURCES_STAMP.exec(page)?.[1] !== sources) writeFileSync(output, stamped(page.replace(/\n?<meta name="pgw-spec-sources-sha256"[^>]*>/, ''), { sources }));
      return;
    }
  }
  doc.info.description = plainHeadings(doc.info.description ?? '');
  const machines = readStateMachines(doc);
  if (machines.length > 0) {
    doc.info.description = `${doc.info.description ?? ''}\n\n## State machines\n\nEach status enumeration declares its transitions (spec: \`x-state-machine\`); the reference server runs every change through these tables.\n\n${machines.map(stateMachineMarkdown).join('\n\n')}\n`;
  }
  // Designed operations, fields and parameters carry a visible mark with the spec's reason (docs-marks.ts).
  markDesigned(doc);
  const dir = mkdtempSync(path.join(tmpdir(), 'pgw-docs-'));
  try {
    const input = path.join(dir, 'openapi.json');
    writeFileSync(input, JSON.stringify(doc));
    buildDocs([input, '--inlineBundle', '--output', output, '--title', 'Payment Gateway API']);
    const page = withLocalImages(readFileSync(output, 'utf8'));
    writeFileSync(output, stamped(page, { hash, sources }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Run as a script (not when a test imports the helpers above).
if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.join(root, 'scripts', 'docs.ts')) main();
