// The conversation view: a webview view in the panel. The extension host
// keeps the conversation and renders it (render.ts); the webview shows the
// HTML, the prompt box, Stop and the session picker, and posts the user's
// actions back. Hiding the view loses nothing: when it is shown again it
// asks for the whole conversation.

import * as vscode from 'vscode';
import { visibleLine } from './visible';
import type { Conversation } from './agent';
import { renderApproval, renderReview, renderTurn } from './render';
import type { ReviewAction } from './reviewUi';
import { usageLabel } from './conversation';

export type FromWebview =
  | { type: 'ready' }
  | { type: 'ask'; text: string }
  | { type: 'stop' }
  | { type: 'newSession' }
  | { type: 'selectSession'; sessionId: string }
  | { type: 'openDiff'; turnId: string; callId: string; index: number }
  | { type: 'approval'; key: string; index: number }
  | { type: 'review'; key: string; action: string; file?: number; hunk?: number }
  | { type: 'reviewComment'; key: string; text: string };

export interface ViewActions {
  ask(text: string): Promise<void>;
  stop(): Promise<void>;
  newSession(): Promise<void>;
  openDiff(turnId: string, callId: string, index: number): Promise<void>;
  answerApproval(key: string, index: number): Promise<void>;
  review(key: string, action: ReviewAction): Promise<void>;
}

export class ConversationView implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly id = 'agentLs.conversation';
  private view?: vscode.WebviewView;
  private timer?: ReturnType<typeof setTimeout>;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly conversation: Conversation,
    private readonly actions: ViewActions,
  ) {
    this.subscriptions.push(conversation.onDidChange(() => this.schedule()));
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }

  /** Shows the view without taking the focus from the editor. */
  reveal(): void {
    if (this.view) this.view.show(true);
    else void vscode.commands.executeCommand(`${ConversationView.id}.focus`, { preserveFocus: true });
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    view.webview.options = { enableScripts: true, localResourceRoots: [media, dist] };
    view.webview.html = this.html(view.webview);
    view.webview.onDidReceiveMessage((m: FromWebview) => this.received(m));
    view.onDidDispose(() => {
      if (this.view === view) this.view = undefined;
    });
  }

  private async received(m: FromWebview): Promise<void> {
    try {
      switch (m.type) {
        case 'ready':
          this.post();
          break;
        case 'ask':
          await this.actions.ask(m.text);
          break;
        case 'stop':
          await this.actions.stop();
          break;
        case 'newSession':
          await this.actions.newSession();
          break;
        case 'selectSession':
          this.conversation.select(m.sessionId);
          break;
        case 'openDiff':
          await this.actions.openDiff(m.turnId, m.callId, m.index);
          break;
        case 'approval':
          await this.actions.answerApproval(m.key, m.index);
          break;
        case 'reviewComment':
          await this.actions.review(m.key, { action: 'comment', text: m.text });
          break;
        case 'review': {
          const file = m.file ?? 0;
          const hunk = m.hunk ?? 0;
          const a: ReviewAction | undefined = {
            accept: { action: 'hunk', file, hunk, accept: true } as const,
            reject: { action: 'hunk', file, hunk, accept: false } as const,
            acceptAll: { action: 'all', accept: true } as const,
            rejectAll: { action: 'all', accept: false } as const,
            submit: { action: 'submit' } as const,
            diff: { action: 'diff', file } as const,
          }[m.action];
          if (a) await this.actions.review(m.key, a);
          break;
        }
      }
    } catch (e) {
      void vscode.window.showErrorMessage(`Agent: ${visibleLine(e instanceof Error ? e.message : String(e))}`);
    }
  }

  /** Renders at most every 40 ms while text streams in. */
  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.post();
    }, 40);
  }

  private post(): void {
    if (!this.view) return;
    const s = this.conversation.state;
    const last = s.turns[s.turns.length - 1];
    void this.view.webview.postMessage({
      type: 'render',
      sessionId: s.sessionId ?? '',
      sessions: this.conversation.sessionIds,
      turns: s.turns.map((t) => ({ id: t.turnId, html: renderTurn(t) })),
      usage: usageLabel(s.usage),
      working: !!last && last.status === 'running',
      approvals: this.conversation.approvals.map(renderApproval).join('') + this.conversation.reviews.map(renderReview).join(''),
    });
  }

  private html(webview: vscode.Webview): string {
    const nonce = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
    const css = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'view.css'));
    const js = webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview.js'));
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${webview.cspSource}; script-src 'nonce-${nonce}'; img-src ${webview.cspSource} data:;">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${css}" rel="stylesheet">
<title>Agent</title>
</head>
<body>
<header class="bar">
  <select id="session" title="Session"></select>
  <span id="usage" class="dim"></span>
</header>
<main id="turns"><div id="empty" class="dim">Ask the agent about this workspace. Enter sends, Shift+Enter starts a new line.</div></main>
<div id="approvals"></div>
<footer class="composer">
  <textarea id="prompt" rows="3" placeholder="Ask the agent…"></textarea>
  <div class="buttons">
    <button id="send" title="Send (Enter)">Send</button>
    <button id="stop" class="secondary" title="Stop the running turn" hidden>Stop</button>
  </div>
</footer>
<script nonce="${nonce}" src="${js}"></script>
</body>
</html>`;
  }
}
