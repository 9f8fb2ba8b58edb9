// The extension's side of a conversation: which session the view
// follows, its state (built from agent/event), and the requests that
// start, stop and undo turns. The view, the status bar and the commands
// all go through it.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { emptyState, reduce, running, sameFolder, type State } from './conversation';
import type { Prompt } from './approval';
import type { Review } from './review';
import { Methods, type AgentEvent, type ContextEntry, type ResumedSession, type SessionInfo, type SessionSummary, type TurnRef } from './protocol';

/** An approval waiting for the user, as the view shows it. */
export interface OpenApproval extends Prompt {
  key: string;
  turnId: string;
}

export interface ClientSource {
  /** The running client, started on first use. */
  client(): Promise<LanguageClient>;
  /** Keeps the id of the session the view shows, for the next window. */
  remember?(sessionId: string): void;
}

export class Conversation implements vscode.Disposable {
  private sessions = new Map<string, State>();
  private current: State = emptyState();
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when any turn of this window starts (the view, a command or a code action). */
  private readonly turnStarted = new vscode.EventEmitter<void>();
  private readonly turnEnded = new vscode.EventEmitter<TurnRef>();
  readonly onDidChange = this.changed.event;
  readonly onTurnStarted = this.turnStarted.event;
  readonly onTurnEnded = this.turnEnded.event;
  /** Approvals waiting for the user, oldest first. */
  approvals: OpenApproval[] = [];
  /** Changes waiting for the user's review, oldest first. */
  reviews: Review[] = [];

  constructor(private readonly source: ClientSource) {}

  dispose(): void {
    this.changed.dispose();
    this.turnStarted.dispose();
    this.turnEnded.dispose();
  }

  get state(): State {
    return this.current;
  }

  get sessionIds(): string[] {
    return [...this.sessions.keys()];
  }

  /** The server restarted: its sessions are gone. */
  reset(): void {
    this.sessions.clear();
    this.current = emptyState();
    this.approvals = [];
    this.reviews = [];
    this.changed.fire();
  }

  handleEvent(ev: AgentEvent): void {
    let s = this.sessions.get(ev.sessionId);
    if (!s) {
      s = emptyState(ev.sessionId);
      this.sessions.set(ev.sessionId, s);
    }
    reduce(s, ev);
    if (ev.type === 'turnStarted' && s !== this.current) {
      // Code actions continue (or start) the workspace's current session:
      // the view follows the session where work happens.
      this.setCurrent(s);
    }
    if (ev.type === 'turnCompleted') this.turnEnded.fire({ sessionId: ev.sessionId, turnId: ev.turnId });
    if (s === this.current) this.changed.fire();
    if (ev.type === 'turnStarted') this.turnStarted.fire();
  }

  select(sessionId: string): void {
    const s = this.sessions.get(sessionId);
    if (s) {
      this.setCurrent(s);
      this.changed.fire();
    }
  }

  private setCurrent(s: State): void {
    this.current = s;
    if (s.sessionId) this.source.remember?.(s.sessionId);
  }

  /**
   * Brings back, from a server that just started (a reloaded window, a
   * restart), the conversation the view showed: the session preferred
   * (the one it showed last), else the workspace's most recent one. The
   * server redraws it as the events it sent (agent/resumeSession), and it
   * becomes the server's current session too.
   */
  async restore(c: LanguageClient, preferred: string | undefined, folder: string | undefined): Promise<boolean> {
    let id = preferred;
    if (!id) {
      const list = await c.sendRequest<{ sessions: SessionSummary[] }>(Methods.listSessions, {});
      id = list.sessions.find((x) => folder !== undefined && sameFolder(x.cwd, folder))?.sessionId;
    }
    if (!id || this.current.sessionId) return false;
    let res: ResumedSession;
    try {
      res = await c.sendRequest<ResumedSession>(Methods.resumeSession, { sessionId: id });
    } catch (e) {
      if (preferred) return this.restore(c, undefined, folder); // gone (pruned): the latest then
      throw e;
    }
    if (this.current.sessionId) return false; // the user started something meanwhile
    const s = emptyState(res.sessionId);
    for (const ev of res.items) reduce(s, ev);
    this.sessions.set(res.sessionId, s);
    this.setCurrent(s);
    this.changed.fire();
    return true;
  }

  async newSession(): Promise<SessionInfo> {
    const c = await this.source.client();
    const info = await c.sendRequest<SessionInfo>(Methods.newSession, {});
    const s = emptyState(info.sessionId);
    this.sessions.set(info.sessionId, s);
    this.setCurrent(s);
    this.changed.fire();
    return info;
  }

  async ask(prompt: string, context?: ContextEntry[]): Promise<TurnRef> {
    if (!this.current.sessionId) await this.newSession();
    const c = await this.source.client();
    const params = { sessionId: this.current.sessionId, prompt, context };
    return c.sendRequest<TurnRef>(Methods.startTurn, params);
  }

  isRunning(): boolean {
    return running(this.current) !== undefined;
  }

  async stop(): Promise<void> {
    const c = await this.source.client();
    const t = running(this.current);
    if (this.current.sessionId && t) {
      await c.sendRequest(Methods.interrupt, { sessionId: this.current.sessionId, turnId: t.turnId });
      return;
    }
    // Not known here (a code action of another session): stop them all.
    await c.sendRequest('workspace/executeCommand', { command: 'agent.interrupt', arguments: [] });
  }

  async undoLastTurn(): Promise<string[]> {
    const s = this.current;
    const last = [...s.turns].reverse().find((t) => t.status !== 'running');
    if (!s.sessionId || !last) throw new Error('There is no finished turn to undo in this conversation.');
    const c = await this.source.client();
    const res = await c.sendRequest<{ files: string[] }>(Methods.undoTurn, { sessionId: s.sessionId, turnId: last.turnId });
    last.items.push({ kind: 'notice', text: `Undone: ${res.files.length} file(s) restored.` });
    this.changed.fire();
    return res.files;
  }

  openApproval(a: OpenApproval): void {
    this.approvals.push(a);
    this.changed.fire();
  }

  openReview(r: Review): void {
    this.reviews.push(r);
    this.changed.fire();
  }

  /** An open review's decisions changed. */
  reviewChanged(): void {
    this.changed.fire();
  }

  closeReview(key: string): void {
    this.reviews = this.reviews.filter((r) => r.key !== key);
    this.changed.fire();
  }

  closeApproval(key: string): void {
    this.approvals = this.approvals.filter((a) => a.key !== key);
    this.changed.fire();
  }
}

