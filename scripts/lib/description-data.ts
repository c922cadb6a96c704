// The parts of spec/description.md written from spec/data (the magic values, the error codes): each between two
// marker comments naming its data file, so that the data is the fact and the prose only its rendering.
// `npm run bundle` rewrites them when the data changes; a spec test fails while the two differ.
import { readErrorCodes, type ErrorCodeModel } from '../../generator/transform/error-codes.ts';
import { readMagicValues } from '../../generator/transform/magic-values.ts';
import type { JsonObject } from '../../generator/model.ts';
import { magicValuesMarkdown } from './magic-values.ts';

/** The marker comments around the text written from `data` (a file of spec/data). */
export const markers = (data: string): { start: string; end: string } => ({
  start: `<!-- Generated from spec/data/${data} by \`npm run bundle\`: edit the data, not this text. -->`,
  end: `<!-- End of the text generated from spec/data/${data}. -->`,
});

const errorCodesMarkdown = (codes: readonly ErrorCodeModel[]): string => [
  '| errorCode | status | meaning |',
  '|---|---|---|',
  ...codes.map((c) => `| \`${c.code}\` | ${String(c.status)} | ${c.meaning.replaceAll('|', '\\|')} |`),
].join('\n');

/** Each data file of the document with the Markdown written from it. */
export function dataSections(doc: JsonObject): { data: string; markdown: string }[] {
  const magic = readMagicValues(doc);
  const errors = readErrorCodes(doc);
  return [
    ...(magic === undefined ? [] : [{ data: 'magic-values.yaml', markdown: magicValuesMarkdown(magic) }]),
    ...(errors === undefined ? [] : [{ data: 'error-codes.yaml', markdown: errorCodesMarkdown(errors) }]),
  ];
}

/** The description with the text between each section's markers replaced by its Markdown; throws when markers are missing. */
export function withDataSections(description: string, sections: readonly { data: string; markdown: string }[]): string {
  let text = description;
  for (const { data, markdown } of sections) {
    const { start, end } = markers(data);
    const from = text.indexOf(start);
    const to = text.indexOf(end);
    if (from === -1 || to < from) throw new Error(`the description has no "${start}" ... "${end}" section`);
    text = `${text.slice(0, from + start.length)}\n\n${markdown}\n\n${text.slice(to)}`;
  }
  return text;
}
