// The agent's questions about code (agent/languageQuery), answered with
// VS Code's own language features through the vscode.execute*Provider
// commands and languages.getDiagnostics, as LSP results. This file holds
// the conversion from VS Code's objects to LSP JSON and takes the vscode
// API as a LanguageHost, so that it runs in unit tests without VS Code.
import type { LanguageQueryParams } from './protocol';

/** A position as VS Code and LSP both shape it (VS Code counts UTF-16 units). */
export interface Pos {
  line: number;
  character: number;
}
export interface Rng {
  start: Pos;
  end: Pos;
}
interface UriLike {
  toString(): string;
}

/** What the answers need of the vscode API. */
export interface LanguageHost {
  /** vscode.commands.executeCommand. */
  execute(command: string, ...args: unknown[]): Thenable<unknown>;
  /** vscode.Uri.parse and new vscode.Position. */
  uri(s: string): UriLike;
  position(p: Pos): unknown;
  /** Opens the document at uri without showing it (workspace.openTextDocument). */
  open(uri: UriLike): Thenable<unknown>;
  /** languages.getDiagnostics(uri), or of every document. */
  diagnostics(uri?: UriLike): Array<[UriLike, unknown[]]>;
  /** The text of line n of the document at uri, for encodings other than UTF-16. */
  lineText(uri: string, line: number): Promise<string>;
}

/** An error the agent reports to the model. */
export class LanguageError extends Error {}

/** Converts a character offset between UTF-16 and the agent's encoding. */
export function convertCharacter(line: string, character: number, from: string, to: string): number {
  if (from === to) {
    return character;
  }
  // To a code-point index first.
  let units = 0;
  let i = 0;
  const cps = Array.from(line);
  const width = (cp: string, enc: string) => (enc === 'utf-8' ? Buffer.byteLength(cp, 'utf8') : enc === 'utf-16' ? cp.length : 1);
  while (i < cps.length && units + width(cps[i], from) <= character) {
    units += width(cps[i], from);
    i++;
  }
  let out = 0;
  for (let j = 0; j < i; j++) {
    out += width(cps[j], to);
  }
  return out;
}

const pos = (p: Pos): Pos => ({ line: p.line, character: p.character });
const rng = (r: Rng): Rng => ({ start: pos(r.start), end: pos(r.end) });

/** A VS Code Location or LocationLink as LSP JSON. */
export function toLocation(l: any): unknown {
  if (l && l.targetUri) {
    return {
      targetUri: l.targetUri.toString(),
      targetRange: rng(l.targetRange),
      targetSelectionRange: rng(l.targetSelectionRange ?? l.targetRange),
    };
  }
  return { uri: l.uri.toString(), range: rng(l.range) };
}

function markdown(c: any): string {
  if (typeof c === 'string') {
    return c;
  }
  if (c && typeof c.value === 'string') {
    return c.language ? '```' + c.language + '\n' + c.value + '\n```' : c.value;
  }
  return '';
}

/** VS Code's hovers as one LSP Hover, or null. */
export function toHover(hovers: any[] | undefined): unknown {
  const parts = (hovers ?? []).flatMap((h) => (h.contents ?? []).map(markdown)).filter((s: string) => s.trim() !== '');
  return parts.length ? { contents: { kind: 'markdown', value: parts.join('\n\n---\n\n') } } : null;
}

/** A VS Code SymbolInformation or DocumentSymbol as LSP JSON (VS Code's kinds count from 0, LSP's from 1). */
export function toSymbol(s: any): any {
  const out: any = { name: s.name, kind: (s.kind ?? 0) + 1 };
  if (s.location) {
    out.location = { uri: s.location.uri.toString(), range: rng(s.location.range) };
    if (s.containerName) {
      out.containerName = s.containerName;
    }
    return out;
  }
  if (s.detail) {
    out.detail = s.detail;
  }
  out.range = rng(s.range);
  out.selectionRange = rng(s.selectionRange ?? s.range);
  out.children = (s.children ?? []).map(toSymbol);
  return out;
}

/** A VS Code WorkspaceEdit's text edits as an LSP WorkspaceEdit. */
export function toWorkspaceEdit(edit: any): unknown {
  if (!edit || typeof edit.entries !== 'function') {
    return null;
  }
  const changes: Record<string, unknown[]> = {};
  for (const [uri, edits] of edit.entries() as Array<[UriLike, any[]]>) {
    const list = (changes[uri.toString()] ??= []);
    for (const e of edits) {
      if (e && e.range && typeof e.newText === 'string') {
        list.push({ range: rng(e.range), newText: e.newText });
      }
    }
  }
  return { changes };
}

/** A VS Code Diagnostic as LSP JSON (VS Code's severities count from 0). */
export function toDiagnostic(d: any): unknown {
  const code = d.code && typeof d.code === 'object' ? d.code.value : d.code;
  return { range: rng(d.range), severity: (d.severity ?? 0) + 1, message: d.message, source: d.source, code };
}

/** Converts every position in an LSP result from UTF-16 to enc, in place. */
export async function convertResult(host: LanguageHost, result: any, enc: string, uri?: string): Promise<void> {
  if (enc === 'utf-16' || result == null) {
    return;
  }
  const fix = async (u: string, p: Pos) => {
    p.character = convertCharacter(await host.lineText(u, p.line), p.character, 'utf-16', enc);
  };
  const walk = async (v: any, u?: string): Promise<void> => {
    if (Array.isArray(v)) {
      for (const x of v) {
        await walk(x, u);
      }
      return;
    }
    if (!v || typeof v !== 'object') {
      return;
    }
    const here = v.uri ?? v.targetUri ?? u;
    for (const [k, x] of Object.entries(v)) {
      if (k === 'changes' && x && typeof x === 'object') {
        for (const [cu, edits] of Object.entries(x as Record<string, unknown>)) {
          await walk(edits, cu);
        }
      } else if (x && typeof x === 'object' && 'line' in (x as any) && 'character' in (x as any) && here) {
        await fix(here, x as Pos);
      } else {
        await walk(x, here);
      }
    }
  };
  await walk(result, uri);
}

/** Answers one agent/languageQuery with VS Code's language features; enc is the agent's position encoding. */
export async function answerQuery(host: LanguageHost, p: LanguageQueryParams, enc = 'utf-16'): Promise<unknown> {
  if (p.kind === 'diagnostics') {
    const entries = p.uri ? [[host.uri(p.uri), host.diagnostics(host.uri(p.uri))[0]?.[1] ?? []] as [UriLike, unknown[]]] : host.diagnostics();
    const out = entries
      .filter(([u, ds]) => p.uri || ds.length > 0)
      .filter(([u]) => u.toString().startsWith('file:'))
      .map(([u, ds]) => ({ uri: u.toString(), diagnostics: ds.map(toDiagnostic) }));
    await convertResult(host, out, enc);
    return out;
  }
  if (p.kind === 'workspaceSymbols') {
    const syms = ((await host.execute('vscode.executeWorkspaceSymbolProvider', p.query ?? '')) as any[]) ?? [];
    const out = syms.map(toSymbol);
    await convertResult(host, out, enc);
    return out;
  }
  if (!p.uri) {
    throw new LanguageError(`${p.kind} needs a uri`);
  }
  const uri = host.uri(p.uri);
  await host.open(uri);
  let position: unknown;
  if (p.position) {
    const utf16 = { line: p.position.line, character: p.position.character };
    if (enc !== 'utf-16') {
      utf16.character = convertCharacter(await host.lineText(p.uri, utf16.line), utf16.character, enc, 'utf-16');
    }
    position = host.position(utf16);
  }
  let out: any;
  switch (p.kind) {
    case 'definition':
      out = (((await host.execute('vscode.executeDefinitionProvider', uri, position)) as any[]) ?? []).map(toLocation);
      break;
    case 'references':
      out = (((await host.execute('vscode.executeReferenceProvider', uri, position)) as any[]) ?? []).map(toLocation);
      if (p.includeDeclaration === false) {
        // VS Code always includes the declaration: leave out the definitions.
        const defs = new Set(
          (((await host.execute('vscode.executeDefinitionProvider', uri, position)) as any[]) ?? []).map((d) => JSON.stringify(toLocation(d))),
        );
        out = out.filter((l: unknown) => !defs.has(JSON.stringify(l)));
      }
      break;
    case 'hover':
      out = toHover((await host.execute('vscode.executeHoverProvider', uri, position)) as any[]);
      break;
    case 'documentSymbols':
      out = (((await host.execute('vscode.executeDocumentSymbolProvider', uri)) as any[]) ?? []).map(toSymbol);
      break;
    case 'rename':
      out = toWorkspaceEdit(await host.execute('vscode.executeDocumentRenameProvider', uri, position, p.newName ?? ''));
      break;
    default:
      throw new LanguageError(`unknown kind ${String(p.kind)}`);
  }
  await convertResult(host, out, enc, p.uri);
  return out;
}
