// Global options before the command are read as if they followed it.
import { describe, expect, it } from 'vitest';
import { commandFirst } from '../src/argv.ts';

const globals = { credentials: { type: 'string' }, merchant: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

describe('commandFirst', () => {
  it.each<[string, string[], string[]]>([
    ['a global option with its value before the command', ['--credentials', 'c.json', 'listen', '--forward-to', 'u'], ['listen', '--credentials', 'c.json', '--forward-to', 'u']],
    ['the --name=value spelling', ['--credentials=c.json', 'trigger', 'customer.created'], ['trigger', '--credentials=c.json', 'customer.created']],
    ['several', ['--merchant', 'm1', '--credentials', 'c', 'clock', 'advance', '1d'], ['clock', '--merchant', 'm1', '--credentials', 'c', 'advance', '1d']],
    ['after the command: unchanged', ['listen', '--credentials', 'c'], ['listen', '--credentials', 'c']],
    ['--help before a command stays first', ['--help'], ['--help']],
    ['an option that is not global is left for the parser to refuse', ['--forward-to', 'u', 'listen'], ['--forward-to', 'u', 'listen']],
    ['a value-taking option with nothing after it', ['--credentials'], ['--credentials']],
  ])('%s', (_name, argv, expected) => {
    expect(commandFirst(argv, globals)).toEqual(expected);
  });
});
