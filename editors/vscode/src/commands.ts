// The Agent commands of the Command Palette.

import * as vscode from 'vscode';
import { visibleLine } from './visible';
import type { Conversation } from './agent';
import { secretKey, type Server } from './client';
import type { ContextEntry } from './protocol';
import type { ConversationView } from './view';

/** Runs f and shows its failure as an error notification. */
export function reporting(f: () => Promise<unknown>): () => Promise<void> {
  return async () => {
    try {
      await f();
    } catch (e) {
      void vscode.window.showErrorMessage(`Agent: ${visibleLine(e instanceof Error ? e.message : String(e))}`);
    }
  };
}

export function registerCommands(
  ctx: vscode.ExtensionContext,
  { conversation, server, view, output }: { conversation: Conversation; server: Server; view: ConversationView; output: vscode.LogOutputChannel },
): vscode.Disposable[] {
  const command = (id: string, f: () => Promise<unknown>) => vscode.commands.registerCommand(id, reporting(f));
  return [
    command('agentLs.ask', () => askCommand(conversation, false)),
    command('agentLs.askAboutSelection', () => askCommand(conversation, true)),
    command('agentLs.newSession', async () => {
      await conversation.newSession();
      view.reveal();
    }),
    command('agentLs.stop', () => conversation.stop()),
    // The commands the agent started (exec_command) that still run.
    command('agentLs.stopTerminals', async () => {
      const c = await server.get();
      const res = await c.sendRequest<{ stopped?: unknown[] } | null>('workspace/executeCommand', { command: 'agent.stopTerminals', arguments: [] });
      const n = res?.stopped?.length ?? 0;
      void vscode.window.showInformationMessage(n ? `Agent: stopped ${n} command${n === 1 ? '' : 's'}.` : 'Agent: no command of the agent was running.');
    }),
    command('agentLs.undoLastTurn', async () => {
      const files = await conversation.undoLastTurn();
      void vscode.window.showInformationMessage(`Agent: restored ${files.length} file(s) to their state before the last turn.`);
    }),
    command('agentLs.showLog', async () => output.show(true)),
    command('agentLs.setApiKey', async () => {
      const key = await vscode.window.showInputBox({
        title: 'Agent: API key',
        prompt: "The OpenAI API key agent-ls uses (kept in VS Code's secret storage)",
        password: true,
        ignoreFocusOut: true,
      });
      if (!key) return;
      await ctx.secrets.store(secretKey, key.trim());
      await server.restart();
      void vscode.window.showInformationMessage('Agent: API key saved.');
    }),
    command('agentLs.clearApiKey', async () => {
      await ctx.secrets.delete(secretKey);
      await server.restart();
    }),
  ];
}

/** Agent: Ask and Ask About Selection: the selection and its diagnostics go along. */
async function askCommand(conversation: Conversation, aboutSelection: boolean): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const context: ContextEntry[] = [];
  if (editor && (!editor.selection.isEmpty || aboutSelection)) context.push(selectionContext(editor));
  if (aboutSelection && (context.length === 0 || editor?.selection.isEmpty)) throw new Error('Select some code first.');
  const prompt = await vscode.window.showInputBox({
    title: aboutSelection ? 'Agent: Ask About Selection' : 'Agent: Ask',
    prompt: context.length ? 'The selection (and its problems) go along with the question' : undefined,
    placeHolder: 'What should the agent do?',
    ignoreFocusOut: true,
  });
  if (!prompt) return;
  await conversation.ask(prompt, context);
}

function selectionContext(editor: vscode.TextEditor): ContextEntry {
  const sel = editor.selection;
  const range = (r: vscode.Range) => ({
    start: { line: r.start.line, character: r.start.character },
    end: { line: r.end.line, character: r.end.character },
  });
  const diagnostics = vscode.languages.getDiagnostics(editor.document.uri).filter((d) => d.range.intersection(sel));
  return {
    uri: editor.document.uri.toString(),
    range: range(sel),
    diagnostics: diagnostics.map((d) => ({ range: range(d.range), severity: d.severity + 1, message: d.message, source: d.source })),
  };
}
