// What the agent's terminals show besides the command's own output: their
// names, the line that says the command ended, and pipe output made fit
// for a terminal. Pure, for the unit tests; terminals.ts shows them.

import { visibleLine } from './visible';

/** How long a terminal's name may be (the tab list is narrow). */
const maxName = 40;

/**
 * The terminal's name: "Agent: " and the model's command line, the last
 * word of the argv the server sends (the shell, its flag, the line).
 */
export function terminalName(command: readonly string[] | undefined, terminalId: string): string {
  const line = visibleLine((command?.[command.length - 1] ?? '').replace(/\s+/g, ' ').trim());
  if (!line) return `Agent: terminal ${terminalId}`;
  return `Agent: ${line.length > maxName ? line.slice(0, maxName - 1) + '…' : line}`;
}

/**
 * Output for the terminal. A pty's output is what a terminal shows, as it
 * is; a pipe's has bare newlines, which a terminal would not return to
 * the line's start.
 */
export function terminalData(data: string, tty: boolean): string {
  return tty ? data : data.replace(/\r?\n/g, '\r\n');
}

/** The line written when the command ended; the terminal stays readable. */
export function exitLine(exitCode: number | undefined): string {
  const how = exitCode === undefined ? 'ended' : exitCode > 128 && exitCode < 160 ? `was killed (signal ${exitCode - 128})` : `exited with code ${exitCode}`;
  return `\r\n\x1b[2m[The command ${how}. This terminal only shows its output now.]\x1b[0m\r\n`;
}

/** Bounds what is kept for a terminal not opened yet (its tail matters). */
export const maxPending = 1 << 20;

export function appendBounded(buf: string, data: string): string {
  const s = buf + data;
  return s.length > maxPending ? s.slice(s.length - maxPending) : s;
}
