// The conversation view: a webview view in the panel. The extension host
// keeps the conversation and renders it (render.ts); the webview shows the
// HTML, the prompt box, Stop and the session picker, and posts the user's
// actions back. Hiding the view loses nothing: when it is shown again it
// asks for the whole conversation.

import * as vscode from 'vscode';
import { visibleLine } from './visible';
import type { Conversation } from './agent';
import { renderApproval, renderQuestion, renderQueue, renderReview, renderTurn } from './render';
import type { ReviewAction } from './reviewUi';
import type { QuestionAction } from './questionUi';
import { planToApprove, usageLabel } from './conversation';
import type { Chosen, MentionAnswer } from './mention';
import type { PastedImage } from './images';

export type FromWebview =
  | { type: 'ready' }
  | { type: 'ask'; text: string; mentions?: Chosen[]; images?: PastedImage[] }
  | { type: 'completeMention'; id: number; query: string }
  | { type: 'stop' }
  | { type: 'newSession' }
  | { type: 'selectSession'; sessionId: string }
  | { type: 'openDiff'; turnId: string; callId: string; index: number }
  | { type: 'approval'; key: string; index: number }
  | { type: 'review'; key: string; action: string; file?: number; hunk?: number }
  | { type: 'reviewComment'; key: string; text: string }
  | { type: 'steer'; text: string }
  | { type: 'sendNow'; turnId: string }
  | { type: 'updateQueued'; turnId: string; prompt: string }
  | { type: 'removeQueued'; turnId: string }
  | { type: 'resumeQueue' }
  | { type: 'setMode'; mode: string }
  | { type: 'approvePlan' }
  | { type: 'rewind'; turnId: string }
  | { type: 'editPrompt'; turnId: string; text: string }
  | { type: 'question'; key: string; id?: string; index?: number; text?: string; submit?: boolean };

export interface ViewActions {
  ask(text: string, mentions?: Chosen[], images?: PastedImage[]): Promise<void>;
  completeMention(query: string): Promise<MentionAnswer>;
  stop(): Promise<void>;
  newSession(): Promise<void>;
  openDiff(turnId: string, callId: string, index: number): Promise<void>;
  answerApproval(key: string, index: number): Promise<void>;
  review(key: string, action: ReviewAction): Promise<void>;
  question(key: string, action: QuestionAction): void;
}

export class ConversationView implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly id = 'agentLs.conversation';
  private view?: vscode.WebviewView;
  private timer?: ReturnType<typeof setTimeout>;
  private mentionAsked = 0;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly conversation: Conversation,
    private readonly actions: ViewActions,
  ) {
    this.subscriptions.push(conversation.onDidChange(() => this.schedule()));
  }

  /**
   * Answers the view's @query (id: its latest): an answer from a folder
   * still being listed shows at once and is asked again until whole, or
   * until the user typed on.
   */
  private async completeMention(id: number, query: string): Promise<void> {
    this.mentionAsked = id;
    for (let tries = 0; this.mentionAsked === id; tries++) {
      const res = await this.actions.completeMention(query).catch(() => ({ items: [], incomplete: false }));
      void this.view?.webview.postMessage({ type: 'mentions', id, items: res.items });
      if (!res.incomplete || tries === 50) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }

  /** The view is on screen (its panel open, its tab chosen). */
  get visible(): boolean {
    return !!this.view?.visible;
  }

  /** Shows the view and gives it the focus. */
  show(): void {
    if (this.view) this.view.show(false);
    else void vscode.commands.executeCommand(`${ConversationView.id}.focus`);
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
        case 'completeMention':
          await this.completeMention(m.id, m.query);
          break;
        case 'ask':
          await this.actions.ask(m.text, m.mentions, m.images);
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
        case 'steer':
          await this.conversation.steer(m.text);
          break;
        case 'sendNow':
          await this.conversation.sendNow(m.turnId);
          break;
        case 'updateQueued':
          await this.conversation.updateQueued(m.turnId, m.prompt);
          break;
        case 'removeQueued':
          await this.conversation.removeQueued(m.turnId);
          break;
        case 'resumeQueue':
          await this.conversation.resumeQueue();
          break;
        case 'setMode':
          await this.conversation.setMode(m.mode === 'plan' ? 'plan' : 'default').finally(() => this.post());
          break;
        case 'approvePlan':
          await this.conversation.approvePlan();
          break;
        case 'rewind':
          await this.rewind(m.turnId);
          break;
        case 'editPrompt':
          await this.rewind(m.turnId, m.text);
          break;
        case 'question':
          if (m.submit) this.actions.question(m.key, { action: 'submit' });
          else if (m.text !== undefined) this.actions.question(m.key, { action: 'other', id: m.id ?? '', text: m.text });
          else this.actions.question(m.key, { action: 'option', id: m.id ?? '', index: m.index ?? -1 });
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
  /**
   * Restore checkpoint: asks, then rewinds to before turnId and tells
   * what was restored and what was left as it is. With prompt (Edit
   * prompt), the edited prompt starts a new turn once the rewind is done.
   */
  private async rewind(turnId: string, prompt?: string): Promise<void> {
    const go = prompt === undefined ? 'Restore checkpoint' : 'Rewind and send';
    const pick = await vscode.window.showWarningMessage(
      prompt === undefined
        ? 'Take the conversation and the files back to before this turn? This turn and every later one leave the conversation; your own edits since are kept.'
        : 'Send the edited prompt in place of this turn? The conversation and the files go back to before it first: this turn and every later one leave the conversation; your own edits since are kept.',
      { modal: true },
      go,
    );
    if (pick !== go) return;
    const res = await this.conversation.rewindTo(turnId, prompt);
    const name = (u: string) => vscode.workspace.asRelativePath(vscode.Uri.parse(u));
    const lines = [`Rewound ${res.rewound.length} turn(s); ${res.files.length} file(s) restored.`];
    for (const c of res.conflicts) lines.push(`Conflict, left as it is: ${name(c.uri)} (${c.reason})`);
    for (const n of res.notRestored) lines.push(`Not restored: ${name(n.uri)} (${n.reason})`);
    const text = visibleLine(lines.join(' '));
    if (res.conflicts.length > 0 || res.notRestored.length > 0) void vscode.window.showWarningMessage(text);
    else void vscode.window.showInformationMessage(text);
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.post();
    }, 40);
  }

  private post(): void {
    if (!this.view) return;
    const c = this.conversation;
    const s = c.state;
    const last = s.turns[s.turns.length - 1];
    // In plan mode, the last turn's plan waits for the user's approval.
    const approvable = planToApprove(s);
    void this.view.webview.postMessage({
      type: 'render',
      sessionId: s.sessionId ?? '',
      sessions: c.sessionIds,
      turns: s.turns.map((t) => ({ id: t.turnId, html: renderTurn(t, approvable && t === last) })),
      usage: usageLabel(s.usage),
      working: !!last && last.status === 'running',
      approvals: c.questions.map(renderQuestion).join('') + c.approvals.map(renderApproval).join('') + c.reviews.map(renderReview).join(''),
      queue: renderQueue(s.queue, s.queuePaused),
      mode: c.mode,
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
  <select id="mode" title="Mode: Plan investigates and proposes a plan, changing nothing, until you approve it">
    <option value="default">Default</option>
    <option value="plan">Plan</option>
  </select>
  <span id="usage" class="dim"></span>
</header>
<main id="turns"><div id="empty" class="dim">Ask the agent about this workspace. Enter sends, Shift+Enter starts a new line. While it works, Enter queues and Ctrl+Enter steers.</div></main>
<div id="approvals"></div>
<ul id="mentions" class="mentions" role="listbox" hidden></ul>
<footer class="composer">
  <div class="input">
    <div id="attachments" hidden></div>
    <div id="editing" class="editing dim" hidden><span>Editing an earlier prompt: Send takes the conversation and the files back to before it, then sends this.</span> <button id="cancelEdit" class="link" title="Keep the conversation as it is (Escape)">Cancel</button></div>
    <textarea id="prompt" rows="3" placeholder="Ask the agent… (@ names a file, a folder, a #symbol or @diagnostics; paste or drop an image to attach it)"></textarea>
  </div>
  <div class="buttons">
    <button id="send" title="Send (Enter)">Send</button>
    <button id="steer" class="secondary" title="Send into the running turn (Ctrl+Enter)" hidden>Steer</button>
    <button id="stop" class="secondary" title="Stop the running turn" hidden>Stop</button>
  </div>
</footer>
<div id="queue"></div>
<script nonce="${nonce}" src="${js}"></script>
</body>
</html>`;
  }
}
