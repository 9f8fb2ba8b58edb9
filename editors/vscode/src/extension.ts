// agent-ls for VS Code: starts the agent-ls language server, and gives it
// a conversation view, commands, approvals and a status bar item.

import { mentionContext } from './mentionContext';
import * as vscode from 'vscode';
import { Conversation } from './agent';
import { Approvals } from './approvalUi';
import { readSettings, Server } from './client';
import { registerCommands, reporting } from './commands';
import { DiffView } from './diffView';
import { notifications } from './notify';
import { languageQuery } from './languageHost';
import { Methods, type AgentEvent, type ApprovalParams, type AskUserParams, type LanguageQueryParams, type ReviewParams } from './protocol';
import { Questions } from './questionUi';
import { Reviews } from './reviewUi';
import { Terminals } from './terminals';
import { agentSettings, configurationChange, needsRestart } from './settings';
import { StatusItem } from './status';
import { ConversationView } from './view';
import { keepImages } from './images';
import { WorkspaceSettingsWarning } from './workspaceSettingsUi';

let server: Server | undefined;

export async function activate(ctx: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('agent-ls', { log: true });
  const diffs = new DiffView();
  const sessionKey = 'agentLs.session';
  const conversation: Conversation = new Conversation({
    client: () => srv.get(),
    remember: (id) => void ctx.workspaceState.update(sessionKey, id),
  });
  const approvals = new Approvals(conversation, diffs, output);
  const reviews = new Reviews(conversation, diffs, output);
  const questions = new Questions(conversation, output);
  const terminals = new Terminals(() => srv.running, output);
  const srv = new Server(
    ctx,
    output,
    (c) => {
      c.onNotification(Methods.event, (ev: AgentEvent) => {
        conversation.handleEvent(ev);
        terminals.handleEvent(ev);
      });
      c.onRequest(Methods.requestApproval, (p: ApprovalParams, token: vscode.CancellationToken) => approvals.ask(p, token));
      c.onRequest(Methods.requestReview, (p: ReviewParams, token: vscode.CancellationToken) => reviews.ask(p, token));
      c.onRequest(Methods.askUser, (p: AskUserParams, token: vscode.CancellationToken) => questions.ask(p, token));
      c.onRequest(Methods.languageQuery, (p: LanguageQueryParams) =>
        languageQuery(p, c.initializeResult?.capabilities.positionEncoding as string | undefined),
      );
    },
    () => {
      questions.withdraw();
      terminals.reset();
      conversation.reset();
    },
    // A reloaded window (or a restarted server) shows the conversation
    // it showed before, brought back from the server's record.
    async (c) => {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.toString();
      await conversation.restore(c, ctx.workspaceState.get<string>(sessionKey), folder);
    },
  );
  server = srv;

  const view = new ConversationView(ctx.extensionUri, conversation, {
    ask: async (text, mentions, images) => {
      const uris = images?.length ? await keepImages(ctx.globalStorageUri, images) : undefined;
      await conversation.ask(text, mentionContext(text, mentions ?? []), uris);
    },
    completeMention: (query) => conversation.completeMention(query),
    stop: () => conversation.stop(),
    newSession: async () => void (await conversation.newSession()),
    openDiff: async (turnId, callId, index) => {
      const turn = conversation.state.turns.find((t) => t.turnId === turnId);
      const it = turn?.items.find((i) => i.kind === 'fileChange' && i.callId === callId);
      if (it?.kind !== 'fileChange' || !it.changes[index]) return;
      await diffs.show(it.changes[index].uri, it.diff, it.status === 'applied');
    },
    answerApproval: (key, index) => approvals.answer(key, index),
    review: (key, action) => reviews.act(key, action),
    question: (key, action) => questions.act(key, action),
  });
  conversation.onTurnStarted(() => view.reveal());

  // Settings a workspace may not choose are read from the user's own
  // settings only; the user is told when the workspace sets them.
  const workspaceWarning = new WorkspaceSettingsWarning(output);
  void workspaceWarning.check();
  let settings = readSettings();
  ctx.subscriptions.push(
    output,
    workspaceWarning,
    diffs,
    reviews,
    questions,
    terminals,
    conversation,
    view,
    notifications(conversation, view),
    new StatusItem(conversation),
    vscode.window.registerWebviewViewProvider(ConversationView.id, view),
    ...registerCommands(ctx, { conversation, server: srv, view, output }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('agentLs')) return;
      void workspaceWarning.check();
      const next = readSettings();
      const restartNeeded = needsRestart(settings, next);
      settings = next;
      void reporting(async () => {
        if (restartNeeded) await srv.restart();
        else await srv.running?.sendNotification('workspace/didChangeConfiguration', configurationChange(agentSettings(next, vscode.workspace.isTrusted)));
      })();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(reporting(() => srv.restart())),
    { dispose: () => void srv.stop() },
  );

  // A workspace is open: start now, so its code actions are there. With
  // no folder the server starts on first use.
  if (vscode.workspace.workspaceFolders?.length) {
    await srv.get().catch((e) => output.error(`agent-ls did not start: ${e instanceof Error ? e.message : String(e)}`));
  }
}

export async function deactivate(): Promise<void> {
  await server?.stop();
}
