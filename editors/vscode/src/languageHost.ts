// The vscode side of agent/languageQuery (language.ts): the commands,
// documents opened without being shown, and the diagnostics.
import * as vscode from 'vscode';
import { answerQuery, LanguageHost } from './language';
import type { LanguageQueryParams } from './protocol';

const host: LanguageHost = {
  execute: (command, ...args) => vscode.commands.executeCommand(command, ...args),
  uri: (s) => vscode.Uri.parse(s),
  position: (p) => new vscode.Position(p.line, p.character),
  open: (uri) => vscode.workspace.openTextDocument(uri as vscode.Uri),
  diagnostics: (uri) => (uri ? [[uri, vscode.languages.getDiagnostics(uri as vscode.Uri)]] : vscode.languages.getDiagnostics()),
  lineText: async (uri, line) => {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
    return line < doc.lineCount ? doc.lineAt(line).text : '';
  },
};

/** Answers agent/languageQuery; enc is the position encoding the client negotiated with agent-ls. */
export async function languageQuery(p: LanguageQueryParams, enc: string | undefined): Promise<unknown> {
  return answerQuery(host, p, enc ?? 'utf-16');
}
