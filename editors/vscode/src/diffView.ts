// Opens file changes in VS Code's diff editor: the text before and after
// a change is rebuilt from the file as it is now and the change's unified
// diff, and served under a scheme of our own.

import * as vscode from 'vscode';
import { applyDiff, diffForPath, parseDiff } from './diff';

export const diffScheme = 'agent-ls-diff';

export class DiffView implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private texts = new Map<string, string>();
  private next = 0;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(diffScheme, this);
  }

  dispose(): void {
    this.registration.dispose();
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.query) ?? '';
  }

  /** A read-only document of ours holding text. */
  text(name: string, label: string, text: string): vscode.Uri {
    return this.virtual(name, label, text);
  }

  private virtual(name: string, label: string, text: string): vscode.Uri {
    const key = String(this.next++);
    this.texts.set(key, text);
    return vscode.Uri.from({ scheme: diffScheme, path: `/${label}/${name}`, query: key });
  }

  /**
   * Shows one file of a change. applied: the file now holds the new text
   * (before is rebuilt backwards); otherwise it holds the old one.
   */
  async show(fileUri: string, diff: string, applied: boolean): Promise<void> {
    const uri = vscode.Uri.parse(fileUri);
    const name = uri.path.split('/').pop() ?? 'file';
    const current = await readText(uri);
    const fd = diffForPath(parseDiff(diff), vscode.workspace.asRelativePath(uri, false));
    const other = fd ? applyDiff(current, fd, applied) : undefined;
    if (other === undefined) {
      // The file moved on since: show the change itself.
      const doc = await vscode.workspace.openTextDocument({ language: 'diff', content: diff });
      await vscode.window.showTextDocument(doc, { preview: true });
      return;
    }
    const [left, right] = applied
      ? [this.virtual(name, 'before', other), uri]
      : [uri, this.virtual(name, 'proposed', other)];
    await vscode.commands.executeCommand('vscode.diff', left, right, `${name} (agent change)`, { preview: true });
  }
}

/**
 * Opens the diff editor on a proposed change of one file (diff is that
 * file's section): the file as it is on the left, as it would be on the
 * right. Returns the right side's uri, or undefined when the file no
 * longer matches the diff (the change itself is shown then).
 */
export async function showProposal(view: DiffView, fileUri: string, kind: string, diff: string): Promise<vscode.Uri | undefined> {
  const uri = vscode.Uri.parse(fileUri);
  const name = uri.path.split('/').pop() ?? 'file';
  const current = kind === 'add' ? '' : await readText(uri);
  const fd = parseDiff(diff)[0];
  const proposed = fd ? applyDiff(current, fd, false) : undefined;
  if (proposed === undefined) {
    const doc = await vscode.workspace.openTextDocument({ language: 'diff', content: diff });
    await vscode.window.showTextDocument(doc, { preview: false, preserveFocus: true });
    return undefined;
  }
  const left = kind === 'add' ? view.text(name, 'none', '') : uri;
  const right = view.text(name, 'proposed', proposed);
  await vscode.commands.executeCommand('vscode.diff', left, right, `${name} (proposed change)`, { preview: false, preserveFocus: true });
  return right;
}

async function readText(uri: vscode.Uri): Promise<string> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return ''; // deleted since, or never created
  }
}
