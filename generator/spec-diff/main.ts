// `npm run spec:diff [-- <revision>]`: what the working tree's contract changes for clients and webhook receivers
// since a revision (default: the last release tag, else main); exit 1 on a breaking change not allowed.
import { parseArgs } from 'node:util';
import { report } from './verdict.ts';
import { specDiff } from './run.ts';

const usage = `usage: npm run spec:diff [-- <revision>] [--summary]
  <revision>  the contract to compare with (default: the last release tag v*, else where HEAD left main)
  --summary   list only the breaking changes that are not allowed (as npm test does)
Exit 1 when a breaking change is neither accepted in accepted-changes.yaml nor covered by a new major
info.version; 2 when the named revision cannot be read.`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { summary: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } } });
  if (values.help || positionals.length > 1) {
    console.log(usage);
    return values.help ? 0 : 2;
  }
  const result = await specDiff(process.cwd(), positionals[0] === undefined ? {} : { revision: positionals[0] });
  if ('problem' in result) {
    // With no revision named, a clone without history to compare is not an error: it is said, not hidden.
    console.log(`spec:diff: not compared: ${result.problem}`);
    return result.named ? 2 : 0;
  }
  for (const line of report(result.verdict, result.baseLabel, { full: !values.summary })) console.log(line);
  return result.verdict.ok ? 0 : 1;
}

main().then(
  (code) => { process.exitCode = code; },
  (error: unknown) => {
    console.error(`spec:diff: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 2;
  },
);
