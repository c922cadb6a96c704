// The conformance CLI's entry point.
import { main } from './cli.ts';

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 2;
  },
);
