// Each workspace package declares exactly what its run-time sources import (no more: an install brings nothing
// unused; no less: a tarball starts), and the @pgw packages depend on one another only as data flows. Each rule
// also catches a planted violation.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dependencyProblems, importsOf, readSources, type Manifest } from './lib/package-deps.ts';
import { root } from './lib/run.ts';

const workspaces = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
const manifestOf = (dir: string): Manifest => JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as Manifest;

describe('package dependencies', () => {
  it.each(workspaces)('%s declares exactly what it imports at run time, and depends only downstream', (dir) => {
    const sources = readSources(path.join(root, dir), manifestOf(dir));
    expect(Object.keys(sources.files).length).toBeGreaterThan(0);
    expect(dependencyProblems(sources)).toEqual([]);
  });

  it('reads static, type, dynamic and require imports, by package', () => {
    expect(importsOf(`import a from 'express';\nimport type { B } from '@scope/pkg/sub';\nexport * from './x.ts';\nconst c = await import('pino');\nconst d = require('knex/lib/x.js');\nconst f = createRequire(import.meta.url)('ts-morph');\nimport 'node:fs';\nimport e from 'fs';`).sort())
      .toEqual(['@scope/pkg', 'express', 'knex', 'pino', 'ts-morph']);
  });

  it('catches an import not declared, a dependency nothing imports, and an edge against the flow', () => {
    const planted = {
      manifest: { name: '@pgw/sandbox', dependencies: { '@pgw/client': '0.1.0', '@pgw/conformance': '0.1.0', lodash: '1', pg: '8' } },
      files: { 'src/a.ts': `import { x } from '@pgw/client/server';\nimport y from 'express';\nimport { z } from '@pgw/conformance';` },
    };
    expect(dependencyProblems(planted)).toEqual([
      '@pgw/sandbox: src/a.ts imports express, which is not among its dependencies',
      '@pgw/sandbox: depends on lodash, which nothing of it imports',
      expect.stringMatching(/^@pgw\/sandbox: may not depend on @pgw\/conformance/),
    ]);
    const generatedOnServer = { manifest: { name: '@pgw/client', dependencies: { '@pgw/sandbox': '0.1.0' } }, files: { 'src/index.ts': "export * from '@pgw/sandbox';" } };
    expect(dependencyProblems(generatedOnServer)).toEqual([expect.stringMatching(/^@pgw\/client: may not depend on @pgw\/sandbox/)]);
  });
});
