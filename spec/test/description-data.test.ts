// The parts of the description written from spec/data (the magic values, the error codes) are the rendering of
// that data: a change to one without the other fails here until `npm run bundle` writes them again.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleFile } from '../../generator/lib/bundle.ts';
import { dataSections, markers, withDataSections } from '../../scripts/lib/description-data.ts';
import { root } from '../../scripts/lib/run.ts';

const description = (): string => readFileSync(path.join(root, 'spec', 'description.md'), 'utf8');

describe('the parts of the description that come from spec/data', () => {
  it('are what spec/data gives (run `npm run bundle` after editing the data)', async () => {
    const sections = dataSections(await bundleFile(path.join(root, 'spec', 'openapi.yaml'), path.join(root, 'redocly.yaml')));
    expect(sections.map((s) => s.data)).toEqual(['magic-values.yaml', 'error-codes.yaml']);
    expect(withDataSections(description(), sections)).toBe(description());
  }, 60_000);

  it.each([
    ['magic-values.yaml', '## Sandbox magic values'],
    ['error-codes.yaml', '### Error codes'],
  ])('place %s under its heading', (data, heading) => {
    const text = description();
    const { start, end } = markers(data);
    const at = text.indexOf(heading);
    expect(at).toBeGreaterThan(-1);
    expect(text.indexOf(start)).toBeGreaterThan(at);
    expect(text.indexOf(end)).toBeGreaterThan(text.indexOf(start));
    // Nothing but the heading's own introduction between the heading and the generated text.
    expect(text.slice(at, text.indexOf(start))).not.toMatch(/\n#/);
  });
});
