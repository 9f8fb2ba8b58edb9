// @-mentions in the prompt box: where one is being typed, what choosing a
// completion makes of the text, and which chosen mentions the sent prompt
// still holds (each goes into agent/startTurn as a context entry). Pure:
// the view's script and the extension both use it.

/** A range in a file, as LSP counts it. */
export interface MentionRange {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

/** An item of agent/completeMention's answer (a symbol: label #Name, its file's uri and range). */
export interface MentionItem {
  uri?: string;
  kind: 'file' | 'folder' | 'symbol' | 'diagnostics';
  label: string;
  range?: MentionRange;
  detail?: string;
}

/** agent/completeMention's answer: incomplete while a folder is still being listed (ask again). */
export interface MentionAnswer {
  items: MentionItem[];
  incomplete: boolean;
}

/** A mention the user chose: its label (after @) and what it names. */
export interface Chosen {
  label: string;
  uri?: string;
  kind: MentionItem['kind'];
  range?: MentionRange;
}

/**
 * The mention being typed at caret: the @ word that ends there (after a
 * space or at the start), its start (the @) and the query after @.
 */
export function mentionAt(text: string, caret: number): { start: number; query: string } | undefined {
  const before = text.slice(0, caret);
  const m = /(^|\s)@(\S*)$/.exec(before);
  if (!m) return undefined;
  return { start: before.length - m[2].length - 1, query: m[2] };
}

/** The text with the mention at start..caret replaced by @label and a space, and the new caret. */
export function insertMention(text: string, start: number, caret: number, label: string): { text: string; caret: number } {
  const inserted = '@' + label + ' ';
  const rest = text.slice(caret).replace(/^\S*/, '').replace(/^ /, '');
  return { text: text.slice(0, start) + inserted + rest, caret: start + inserted.length };
}

/** The chosen mentions the prompt still holds as @label words, each once. */
export function mentionsIn(prompt: string, chosen: Chosen[]): Chosen[] {
  const words = new Set(prompt.split(/\s+/).filter((w) => w.startsWith('@')).map((w) => w.slice(1).replace(/[.,;:!?)\]}'"]+$/, '')));
  const seen = new Set<string>();
  return chosen.filter((c) => {
    if (!words.has(c.label) || seen.has(c.label)) return false;
    seen.add(c.label);
    return true;
  });
}
