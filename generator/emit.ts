// Writes generated files, each only when its bytes change; or, with check, only compares.
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { GeneratedFile } from './lib/ts.ts';

export interface EmitReport {
  /** Files whose content differs from the generated one (written, or stale under check). */
  readonly changed: string[];
  /** Files the generator would create (created, or missing under check). */
  readonly missing: string[];
  /** Files in the output folder that the generator does not produce (removed, or stale under check). */
  readonly extra: string[];
  readonly unchanged: number;
}

function listFiles(dir: string, prefix = ''): string[] {
  let entries;
  try {
    entries = readdirSync(path.join(dir, prefix), { withFileTypes: true });
  } catch {
    return [];
  }
  // Dot-files (the CLI's fingerprint) are the CLI's business, not the generated set's.
  return entries.filter((e) => !e.name.startsWith('.')).flatMap((e) => {
    const relative = prefix ? `${prefix}/${e.name}` : e.name;
    return e.isDirectory() ? listFiles(dir, relative) : [relative];
  });
}

function current(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

export function emit(outDir: string, files: readonly GeneratedFile[], check: boolean): EmitReport {
  const report: EmitReport = { changed: [], missing: [], extra: [], unchanged: 0 };
  const wanted = new Set(files.map((f) => f.path));
  for (const file of files) {
    const target = path.join(outDir, file.path);
    const existing = current(target);
    if (existing === file.content) {
      (report as { unchanged: number }).unchanged++;
      continue;
    }
    (existing === undefined ? report.missing : report.changed).push(file.path);
    if (!check) {
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, file.content);
    }
  }
  for (const relative of listFiles(outDir)) {
    if (wanted.has(relative)) continue;
    report.extra.push(relative);
    if (!check) rmSync(path.join(outDir, relative));
  }
  return report;
}
