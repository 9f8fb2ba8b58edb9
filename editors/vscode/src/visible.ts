// Text from the model, the repository or a server, made safe to show:
// the same escapes as agent-ls's own (Go's textcut.Visible). The C0
// controls but newline and tab (\r, \x1b), DEL (\x7f), the C1 controls
// (\u009b), the bidi embeddings, overrides and isolates (\u202e, \u2066),
// the zero-width characters and direction marks (\u200b…\u200f), and lone
// UTF-16 surrogates (\ud800: what invalid UTF-8 would be) are written
// out, so that the user sees something is there. Escaping HTML is not
// enough: a bidi override inside escaped text still reorders what the
// webview or a notification shows, so a command or a file name reads as
// another. Pure.

// hidden matches what visible escapes; hiddenLine adds newline and tab.
const hidden = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const hiddenLine = /[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const named: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\v': '\\v', '\f': '\\f', '\r': '\\r' };

function escapeOne(c: string): string {
  const n = c.charCodeAt(0);
  if (named[c]) return named[c];
  if (n < 0x20 || n === 0x7f) return '\\x' + n.toString(16).padStart(2, '0');
  return '\\u' + n.toString(16).padStart(4, '0');
}

/** s with its hidden characters escaped; newlines and tabs kept. */
export function visible(s: string | undefined | null): string {
  return String(s ?? '').replace(hidden, escapeOne);
}

/** visible for one line (a title, a file name, a notification): newlines and tabs escaped too. */
export function visibleLine(s: string | undefined | null): string {
  return String(s ?? '').replace(hiddenLine, escapeOne);
}

const keywords = new Set(['!', '{', '}', '[[', ']]', 'case', 'coproc', 'do', 'done', 'elif', 'else', 'esac', 'fi', 'for', 'function', 'if', 'in', 'select', 'then', 'time', 'until', 'while']);

/**
 * One argument quoted as agent-ls quotes a command to approve (bash
 * quoting, as mvdan.cc/sh's syntax.Quote does): bare when it can be, in
 * single quotes, in double quotes when it has a single quote, and as
 * $'…' with its hidden characters escaped when it has any.
 */
export function shellWord(a: string): string {
  a = String(a);
  if (a === '') return "''";
  if (visibleLine(a) !== a) return `$'${visibleLine(a.replace(/[\\']/g, '\\$&'))}'`;
  if (!/[;"'()$|&><` \t\r\n\\#{~*?[=]/.test(a) && !keywords.has(a)) return a;
  if (!a.includes("'")) return `'${a}'`;
  return `"${a.replace(/["\\`$]/g, '\\$&')}"`;
}

/** A command as one line, one shell word per argument. */
export function shellWords(argv: readonly string[] | undefined): string {
  return (argv ?? []).map(shellWord).join(' ');
}
