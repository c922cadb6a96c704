// Runs a workspace package's TypeScript entry from this repository's sources (a bin in a checkout): tsx for the
// TypeScript, and the pgw-source export condition so that the other @pgw packages resolve to their sources too.
// A tarball has no src/, and its bins run dist/ without this file.
import { register } from 'node:module';

const CONDITION = 'pgw-source';
// A resolve hook that adds the condition: the process started without it (`npx pgw` outside npm's scripts).
const HOOK = `export async function resolve(specifier, context, next) {
  return next(specifier, context.conditions.includes('${CONDITION}') ? context : { ...context, conditions: [...context.conditions, '${CONDITION}'] });
}`;

/** Imports entry (a file: URL of a .ts module) with tsx and the source condition. */
export async function runSource(entry) {
  if (!(process.env.NODE_OPTIONS ?? '').includes(`--conditions=${CONDITION}`) && !process.execArgv.includes(`--conditions=${CONDITION}`)) {
    register(`data:text/javascript,${encodeURIComponent(HOOK)}`);
    // Processes it starts (the instances of PGW_INSTANCES, a spawned server) resolve the same way.
    process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --conditions=${CONDITION}`.trim();
  }
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
  await import(entry.href);
}
