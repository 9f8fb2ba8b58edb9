// Unified diffs as agent-ls sends them (git-style a/ and b/ names, one or
// more files): split per file, and applied forwards or backwards to a
// file's text, so the Diff button can show before and after in VS Code's
// diff editor. Pure.

export interface Hunk {
  oldStart: number;
  newStart: number;
  lines: string[]; // each starting with ' ', '-' or '+'
}

export interface FileDiff {
  oldName: string; // without a/ ('' for /dev/null)
  newName: string; // without b/ ('' for /dev/null)
  hunks: Hunk[];
}

function stripName(s: string, prefix: string): string {
  const name = s.replace(/\t.*$/, '');
  if (name === '/dev/null') return '';
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

export function parseDiff(diff: string): FileDiff[] {
  const files: FileDiff[] = [];
  let cur: FileDiff | undefined;
  let hunk: Hunk | undefined;
  const lines = diff.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.startsWith('--- ') && i + 1 < lines.length && lines[i + 1].startsWith('+++ ')) {
      cur = { oldName: stripName(l.slice(4), 'a/'), newName: stripName(lines[i + 1].slice(4), 'b/'), hunks: [] };
      files.push(cur);
      hunk = undefined;
      i++;
      continue;
    }
    const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(l);
    if (m && cur) {
      hunk = { oldStart: +m[1], newStart: +m[2], lines: [] };
      cur.hunks.push(hunk);
      continue;
    }
    if (hunk && (l.startsWith(' ') || l.startsWith('-') || l.startsWith('+'))) hunk.lines.push(l);
    else if (hunk && l.startsWith('\\')) hunk.lines.push(l); // "\ No newline at end of file"
  }
  return files;
}

/** The diff of the file whose path ends with name (workspace-relative names in the diff). */
export function diffForPath(files: FileDiff[], path: string): FileDiff | undefined {
  const norm = path.replace(/\\/g, '/');
  return files.find((f) => {
    const n = f.newName || f.oldName;
    return n !== '' && (norm === n || norm.endsWith('/' + n));
  }) ?? files.find((f) => f.oldName !== '' && (norm === f.oldName || norm.endsWith('/' + f.oldName)));
}

/**
 * Applies the diff to text: forwards turns the old text into the new one,
 * backwards the new into the old. Returns undefined when the text does not
 * match what the diff expects (the file changed since).
 */
export function applyDiff(text: string, fd: FileDiff, backwards: boolean): string | undefined {
  const endsWithNewline = text.endsWith('\n');
  const src = text === '' ? [] : (endsWithNewline ? text.slice(0, -1) : text).split('\n');
  const out: string[] = [];
  let pos = 0; // next line of src to copy
  let noNewlineAtEnd = !endsWithNewline && text !== '';
  for (const h of fd.hunks) {
    const from: string[] = [];
    const to: string[] = [];
    let lastSide = ' ';
    let missingNewlineFrom = false;
    let missingNewlineTo = false;
    for (const l of h.lines) {
      if (l.startsWith('\\')) {
        if (lastSide === ' ') missingNewlineFrom = missingNewlineTo = true;
        else if ((lastSide === '-') !== backwards) missingNewlineFrom = true;
        else missingNewlineTo = true;
        continue;
      }
      const side = l[0];
      lastSide = side;
      const body = l.slice(1);
      const isFrom = side === ' ' || side === (backwards ? '+' : '-');
      const isTo = side === ' ' || side === (backwards ? '-' : '+');
      if (isFrom) from.push(body);
      if (isTo) to.push(body);
    }
    const startLine = (backwards ? h.newStart : h.oldStart) - (from.length === 0 ? 0 : 1);
    if (startLine < pos || startLine + from.length > src.length) return undefined;
    for (let i = 0; i < from.length; i++) if (src[startLine + i] !== from[i]) return undefined;
    out.push(...src.slice(pos, startLine), ...to);
    pos = startLine + from.length;
    if (pos === src.length) {
      if (missingNewlineFrom !== noNewlineAtEnd && from.length > 0) return undefined;
      noNewlineAtEnd = missingNewlineTo;
    }
  }
  out.push(...src.slice(pos));
  if (out.length === 0) return '';
  return out.join('\n') + (noNewlineAtEnd ? '' : '\n');
}
