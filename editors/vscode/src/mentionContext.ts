// The context entries of the mentions a prompt sent from the view holds:
// a file or folder as itself, a symbol (@#Name) as its file and range,
// @diagnostics as each file's diagnostics.

import * as vscode from 'vscode';
import { mentionsIn, type Chosen } from './mention';
import type { ContextEntry } from './protocol';

const severities = [1, 2, 3, 4]; // vscode's Error..Hint are 0..3, LSP's 1..4

export function mentionContext(prompt: string, chosen: Chosen[]): ContextEntry[] | undefined {
  const out: ContextEntry[] = [];
  for (const m of mentionsIn(prompt, chosen)) {
    if (m.kind === 'diagnostics') {
      for (const [uri, diags] of vscode.languages.getDiagnostics()) {
        if (diags.length === 0 || uri.scheme !== 'file') continue;
        const first = Math.min(...diags.map((d) => d.range.start.line));
        const last = Math.max(...diags.map((d) => d.range.end.line));
        out.push({
          uri: uri.toString(),
          range: { start: { line: first, character: 0 }, end: { line: last + 1, character: 0 } },
          diagnostics: diags.map((d) => ({
            range: { start: { line: d.range.start.line, character: d.range.start.character }, end: { line: d.range.end.line, character: d.range.end.character } },
            severity: severities[d.severity],
            message: d.message,
            source: d.source,
          })),
        });
      }
    } else if (m.uri) {
      out.push(m.range ? { uri: m.uri, range: m.range } : { uri: m.uri });
    }
  }
  return out.length > 0 ? out : undefined;
}
