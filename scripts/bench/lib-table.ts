// Plain-text tables of the HTTP benchmark: aligned columns, the goals of issue 13 and their verdicts.
import { failures, type Figures } from './lib-wrk.ts';

export interface Column { title: string; right?: boolean }

/** Columns padded to their widest cell; a row shorter than the header leaves its last cells empty. */
export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((column, i) => Math.max(column.title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const cell = (text: string, i: number): string => {
    const width = widths[i] ?? 0;
    return columns[i]?.right ? text.padStart(width) : text.padEnd(width);
  };
  const lines = [columns.map((column, i) => cell(column.title, i)), ...rows.map((row) => columns.map((_, i) => cell(row[i] ?? '', i)))];
  return lines.map((line) => line.join('  ').trimEnd()).join('\n');
}

export const ms = (value: number): string => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
export const rps = (value: number): string => value.toFixed(0);

/** The words of issue 13's checklist, so that a run's output can be searched for "not met". */
export const verdict = (met: boolean): string => (met ? 'met' : 'not met');

/** Empty for a clean run; otherwise loud, with the kinds of failure. */
export function failureCell(figures: Figures): string {
  const n = failures(figures);
  if (n === 0) return '';
  const parts = [figures.non2xx > 0 ? `non-2xx ${String(figures.non2xx)}` : '', figures.socketErrors > 0 ? `socket ${String(figures.socketErrors)}` : ''].filter(Boolean);
  return `<<< FAILED ${String(n)} (${parts.join(', ')}) of ${String(figures.requests)}`;
}

export function banner(title: string): string {
  return `\n== ${title} ${'='.repeat(Math.max(3, 100 - title.length))}`;
}
