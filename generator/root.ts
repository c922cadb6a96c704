// The generator's own folder, whether it runs from its TypeScript sources (tsx, vitest) or compiled (dist/).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The folder that holds templates/ and the sources: this module's own, or its parent when it runs from dist/. */
export const generatorRoot = path.basename(here) === 'dist' ? path.dirname(here) : here;
