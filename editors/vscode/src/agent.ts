// The extension's side of a conversation: which session the view
// follows, its state (built from agent/event), and the requests that
// start, stop and undo turns. The view, the status bar and the commands
// all go through it.

import type { MentionAnswer, MentionItem } from './mention';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { emptyState, reduce, running, sameFolder, type State } from './conversation';
import type { Prompt } from './approval';
import type { Review } from './review';
import type { OpenQuestion } from './question';
import {
  Methods,
  type AgentEvent,
  type ContextEntry,
  type ResumedSession,
  type RewindResult,
  type SessionInfo,
  type SessionMode,
  type SessionSummary,
  type SteerResult,
  type TurnRef,
} from './protocol';

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
  /** Questions of the model waiting for the user's answers, oldest first. */
  questions: OpenQuestion[] = [];
  /** The mode the next new session starts in (the view's switch before any session). */
  private nextMode: SessionMode = 'default';
  private readonly waitingForUser = new vscode.EventEmitter<'approval' | 'question' | 'review'>();
  /** Fires when the agent starts to wait on the user. */
  readonly onWaitingForUser = this.waitingForUser.event;

  constructor(private readonly source: ClientSource) {}

  dispose(): void {
    this.changed.dispose();
    this.turnStarted.dispose();
    this.turnEnded.dispose();
    this.waitingForUser.dispose();
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
    this.questions = [];
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
    if (ev.type === 'turnCompleted') this.turnEnded.fire({ sessionId: ev.sessionId, turnId: ev.turnId, status: ev.status });
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
    if (res.mode) s.mode = res.mode;
    for (const ev of res.items) reduce(s, ev);
    this.sessions.set(res.sessionId, s);
    this.setCurrent(s);
    this.changed.fire();
    return true;
  }

  /** The mode the view's switch shows: the session's, or the next one's. */
  get mode(): SessionMode {
    return this.current.sessionId ? this.current.mode : this.nextMode;
  }

  async newSession(): Promise<SessionInfo> {
    const c = await this.source.client();
    // A new session keeps the mode the switch shows.
    const mode = this.mode;
    const info = await c.sendRequest<SessionInfo>(Methods.newSession, mode === 'plan' ? { mode } : {});
    const s = emptyState(info.sessionId);
    s.mode = info.mode ?? mode;
    this.sessions.set(info.sessionId, s);
    this.setCurrent(s);
    this.changed.fire();
    return info;
  }

  async ask(prompt: string, context?: ContextEntry[], images?: string[]): Promise<TurnRef> {
    if (!this.current.sessionId) await this.newSession();
    const c = await this.source.client();
    const params = { sessionId: this.current.sessionId, prompt, context, images };
    return c.sendRequest<TurnRef>(Methods.startTurn, params);
  }

  /**
   * What @query completes to in the current session's workspace
   * (agent/completeMention); incomplete while a folder is still being
   * listed for the first time.
   */
  async completeMention(query: string): Promise<MentionAnswer> {
    const c = await this.source.client();
    const params = this.current.sessionId ? { sessionId: this.current.sessionId, query, limit: 20 } : { query, limit: 20 };
    const res = await c.sendRequest<{ items?: MentionItem[]; incomplete?: boolean }>(Methods.completeMention, params);
    return { items: res.items ?? [], incomplete: res.incomplete === true };
  }

  /**
   * A message for the running turn (agent/steer); with no turn running it
   * starts one.
   */
  async steer(prompt: string): Promise<SteerResult> {
    if (!this.current.sessionId) await this.newSession();
    const c = await this.source.client();
    return c.sendRequest<SteerResult>(Methods.steer, { sessionId: this.current.sessionId, prompt });
  }

  /** "Send now": a waiting prompt goes into the running turn (or starts one). */
  async sendNow(turnId: string): Promise<SteerResult> {
    return (await this.session()).c.sendRequest<SteerResult>(Methods.steer, { sessionId: this.current.sessionId, turnId });
  }

  async updateQueued(turnId: string, prompt: string): Promise<void> {
    await (await this.session()).c.sendRequest(Methods.updateQueued, { sessionId: this.current.sessionId, turnId, prompt });
  }

  async removeQueued(turnId: string): Promise<void> {
    await (await this.session()).c.sendRequest(Methods.removeQueued, { sessionId: this.current.sessionId, turnId });
  }

  async resumeQueue(): Promise<void> {
    await (await this.session()).c.sendRequest(Methods.resumeQueue, { sessionId: this.current.sessionId });
  }

  /** The view's mode switch: the session's mode, or the next session's. */
  async setMode(mode: SessionMode): Promise<void> {
    const s = this.current;
    if (!s.sessionId) {
      this.nextMode = mode;
      this.changed.fire();
      return;
    }
    const c = await this.source.client();
    await c.sendRequest(Methods.setMode, { sessionId: s.sessionId, mode });
    s.mode = mode;
    this.nextMode = mode;
    this.changed.fire();
  }

  /** Approves the plan: back to default mode, and a turn carries it out. */
  async approvePlan(): Promise<TurnRef> {
    const s = this.current;
    const { c } = await this.session();
    const res = await c.sendRequest<{ turnId: string; queued?: boolean }>(Methods.approvePlan, { sessionId: s.sessionId });
    // Behind a running turn the approval waits in the queue, and the
    // session stays in plan mode until it starts (modeChanged).
    if (!res.queued) {
      s.mode = 'default';
      this.nextMode = 'default';
      this.changed.fire();
    }
    return { sessionId: s.sessionId!, turnId: res.turnId, queued: res.queued };
  }

  private async session(): Promise<{ c: LanguageClient }> {
    if (!this.current.sessionId) throw new Error('There is no session yet.');
    return { c: await this.source.client() };
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

  /**
   * Takes the conversation and its files back to before turnId (and every
   * later turn): agent/rewind. The rewound event marks the turns. With a
   * prompt, a new turn starts with it once the rewind is done.
   */
  async rewindTo(turnId: string, prompt?: string): Promise<RewindResult> {
    const { c } = await this.session();
    return c.sendRequest<RewindResult>(Methods.rewind, { sessionId: this.current.sessionId, turnId, ...(prompt ? { prompt } : {}) });
  }

  openApproval(a: OpenApproval): void {
    this.approvals.push(a);
    this.changed.fire();
    this.waitingForUser.fire('approval');
  }

  openReview(r: Review): void {
    this.reviews.push(r);
    this.changed.fire();
    this.waitingForUser.fire('review');
  }

  openQuestion(q: OpenQuestion): void {
    this.questions.push(q);
    this.changed.fire();
    this.waitingForUser.fire('question');
  }

  /** An open question's picks changed. */
  questionChanged(): void {
    this.changed.fire();
  }

  closeQuestion(key: string): void {
    this.questions = this.questions.filter((q) => q.key !== key);
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

