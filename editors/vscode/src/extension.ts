// agent-ls for VS Code: starts the agent-ls language server, and gives it
// a conversation view, commands, approvals and a status bar item.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { Conversation } from './agent';
import { Approvals } from './approvalUi';
import { createClient, readSettings, secretKey } from './client';
import { DiffView } from './diffView';
import { Methods, type AgentEvent, type ApprovalParams, type ContextEntry } from './protocol';
import { agentSettings, configurationChange, needsRestart, type Settings } from './settings';
import { StatusItem } from './status';
import { ConversationView } from './view';

let client: LanguageClient | undefined;
let starting: Promise<LanguageClient> | undefined;

export async function activate(ctx: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('agent-ls', { log: true });
  const diffs = new DiffView();
  const conversation = new Conversation({ client: () => ensureClient() });
  const approvals = new Approvals(conversation, diffs, output);
  let settings: Settings = readSettings();

  function ensureClient(): Promise<LanguageClient> {
    if (client) return Promise.resolve(client);
    if (!starting) {
      starting = (async () => {
        const c = await createClient(ctx, output);
        c.onNotification(Methods.event, (ev: AgentEvent) => conversation.handleEvent(ev));
        c.onRequest(Methods.requestApproval, (p: ApprovalParams, token: vscode.CancellationToken) => approvals.ask(p, token));
        await c.start();
        client = c;
        return c;
      })().finally(() => {
        starting = undefined;
      });
    }
    return starting;
  }

  async function restart(): Promise<void> {
    const old = client;
    client = undefined;
    conversation.reset();
    if (old) await old.stop().catch(() => undefined);
    await ensureClient();
  }

  const view = new ConversationView(ctx.extensionUri, conversation, {
    ask: async (text) => void (await conversation.ask(text)),
    stop: () => conversation.stop(),
    newSession: async () => void (await conversation.newSession()),
    openDiff: async (turnId, callId, index) => {
      const turn = conversation.state.turns.find((t) => t.turnId === turnId);
      const it = turn?.items.find((i) => i.kind === 'fileChange' && i.callId === callId);
      if (it?.kind !== 'fileChange' || !it.changes[index]) return;
      await diffs.show(it.changes[index].uri, it.diff, it.status === 'applied');
    },
    answerApproval: (key, index) => approvals.answer(key, index),
  });
  conversation.onTurnStarted(() => view.reveal());

  const run = (f: () => Promise<unknown>) => async () => {
    try {
      await f();
    } catch (e) {
      void vscode.window.showErrorMessage(`Agent: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  ctx.subscriptions.push(
    output,
    diffs,
    conversation,
    view,
    new StatusItem(conversation),
    vscode.window.registerWebviewViewProvider(ConversationView.id, view),
    vscode.commands.registerCommand('agentLs.ask', run(() => askCommand(conversation, false))),
    vscode.commands.registerCommand('agentLs.askAboutSelection', run(() => askCommand(conversation, true))),
    vscode.commands.registerCommand('agentLs.newSession', run(async () => {
      await conversation.newSession();
      view.reveal();
    })),
    vscode.commands.registerCommand('agentLs.stop', run(() => conversation.stop())),
    vscode.commands.registerCommand('agentLs.undoLastTurn', run(async () => {
      const files = await conversation.undoLastTurn();
      void vscode.window.showInformationMessage(`Agent: restored ${files.length} file(s) to their state before the last turn.`);
    })),
    vscode.commands.registerCommand('agentLs.showLog', () => output.show(true)),
    vscode.commands.registerCommand('agentLs.setApiKey', run(async () => {
      const key = await vscode.window.showInputBox({ title: 'Agent: API key', prompt: 'The OpenAI API key agent-ls uses (kept in VS Code\'s secret storage)', password: true, ignoreFocusOut: true });
      if (!key) return;
      await ctx.secrets.store(secretKey, key.trim());
      if (client) await restart();
      void vscode.window.showInformationMessage('Agent: API key saved.');
    })),
    vscode.commands.registerCommand('agentLs.clearApiKey', run(async () => {
      await ctx.secrets.delete(secretKey);
      if (client) await restart();
    })),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('agentLs')) return;
      const next = readSettings();
      const restartNeeded = needsRestart(settings, next);
      settings = next;
      if (!client) return;
      void run(async () => {
        if (restartNeeded) await restart();
        else await client?.sendNotification('workspace/didChangeConfiguration', configurationChange(agentSettings(next, vscode.workspace.isTrusted)));
      })();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(run(async () => {
      if (client) await restart();
    })),
    { dispose: () => void client?.stop() },
  );

  // A workspace is open: start now, so its code actions are there. With
  // no folder the server starts on first use.
  if (vscode.workspace.workspaceFolders?.length) {
    await ensureClient().catch((e) => output.error(`agent-ls did not start: ${e instanceof Error ? e.message : String(e)}`));
  }
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}

/** Agent: Ask and Ask About Selection: the selection and its diagnostics go along. */
async function askCommand(conversation: Conversation, aboutSelection: boolean): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const context: ContextEntry[] = [];
  if (editor) {
    const sel = editor.selection;
    if (!sel.isEmpty || aboutSelection) {
      const diagnostics = vscode.languages.getDiagnostics(editor.document.uri).filter((d) => d.range.intersection(sel));
      context.push({
        uri: editor.document.uri.toString(),
        range: { start: { line: sel.start.line, character: sel.start.character }, end: { line: sel.end.line, character: sel.end.character } },
        diagnostics: diagnostics.map((d) => ({
          range: { start: { line: d.range.start.line, character: d.range.start.character }, end: { line: d.range.end.line, character: d.range.end.character } },
          severity: d.severity + 1,
          message: d.message,
          source: d.source,
        })),
      });
    }
  }
  if (aboutSelection && context.length === 0) throw new Error('Select some code first.');
  const prompt = await vscode.window.showInputBox({
    title: aboutSelection ? 'Agent: Ask About Selection' : 'Agent: Ask',
    prompt: context.length ? 'The selection (and its problems) go along with the question' : undefined,
    placeHolder: 'What should the agent do?',
    ignoreFocusOut: true,
  });
  if (!prompt) return;
  await conversation.ask(prompt, context);
}
