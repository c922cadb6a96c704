// Text from the server or from a fixture, made safe to print on a terminal: an answer, an error message or a
// fixture's name cannot move the cursor, clear the screen, retitle the window, hide or reorder text.

/**
 * The characters written as `\uXXXX` instead of themselves: C0 controls (newline, carriage return, tab, BEL, ESC,
 * which starts every escape sequence: CSI `ESC [`, OSC `ESC ]`...), DEL, C1 controls (CSI U+009B, OSC U+009D...),
 * the bidirectional controls (which reorder what follows on the line: U+061C, U+200E-U+200F, U+202A-U+202E,
 * U+2066-U+2069) and the line and paragraph separators.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * The text with each unsafe character escaped (ESC is shown as `\u001b`), the rest as it was. Applying it twice
 * changes nothing more: what it writes holds no unsafe character.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A printer of lines that prints each made terminal-safe: what every command printing others' text goes through. */
export const safePrinter = (say: (text: string) => void) => (text: string): void => { say(terminalSafe(text)); };
