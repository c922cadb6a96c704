// Global options may stand before the command as well as after it (`pgw --credentials F listen …`, the form
// CI recipes write): they are moved after the command, where the command's parser reads them.
import type { ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** argv with the global options that precede the command moved to just after it; the rest as it was. */
export function commandFirst(argv: readonly string[], globals: Options): string[] {
  const leading: string[] = [];
  let i = 0;
  for (;;) {
    const token = argv[i];
    if (token === undefined || !token.startsWith('--') || token === '--') break;
    const option = globals[token.slice(2).split('=')[0] ?? ''];
    // --help before a command stays where it is (`pgw --help` prints the overview).
    if (option === undefined || token === '--help') break;
    leading.push(token);
    i++;
    if (option.type === 'string' && !token.includes('=')) {
      const value = argv[i];
      if (value === undefined) break;
      leading.push(value);
      i++;
    }
  }
  if (leading.length === 0) return [...argv];
  return [...argv.slice(i, i + 1), ...leading, ...argv.slice(i + 1)];
}
