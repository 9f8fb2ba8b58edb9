// The command sessions the agent starts (exec_command) as VS Code
// terminals: a Pseudoterminal per session, fed by the terminalStarted,
// terminalOutput and terminalExited events, named after its command.
// What the user types goes to the session (agent/writeTerminal); closing
// a terminal whose command still runs stops it (agent/killTerminal), as
// closing one of VS Code's own terminals ends its process. A command that
// ended leaves its terminal open and readable, marked ended.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { Methods, type AgentEvent } from './protocol';
import { appendBounded, exitLine, terminalData, terminalName } from './terminalText';
import { visibleLine } from './visible';

class AgentTerminal implements vscode.Pseudoterminal {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  readonly onDidWrite = this.writeEmitter.event;
  private opened = false;
  private pending = '';
  running = true;
  terminal?: vscode.Terminal;

  constructor(
    readonly sessionId: string,
    readonly terminalId: string,
    private readonly tty: boolean,
    private readonly owner: Terminals,
  ) {}

  open(): void {
    this.opened = true;
    if (this.pending) this.writeEmitter.fire(this.pending);
    this.pending = '';
  }

  close(): void {
    this.owner.closedByUser(this);
  }

  handleInput(data: string): void {
    if (this.running) this.owner.typed(this, data);
  }

  output(data: string): void {
    this.write(terminalData(data, this.tty));
  }

  exited(exitCode: number | undefined): void {
    if (!this.running) return;
    this.running = false;
    this.write(exitLine(exitCode));
  }

  private write(s: string): void {
    if (this.opened) this.writeEmitter.fire(s);
    else this.pending = appendBounded(this.pending, s);
  }

  dispose(): void {
    this.writeEmitter.dispose();
  }
}

export class Terminals implements vscode.Disposable {
  private readonly open = new Map<string, AgentTerminal>();
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Said once: the server does not take typing or kills yet. */
  private toldUnsupported = false;

  constructor(
    private readonly client: () => LanguageClient | undefined,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions.push(
      vscode.window.onDidCloseTerminal((t) => {
        for (const [k, a] of this.open) if (a.terminal === t) this.forget(k, a);
      }),
    );
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    for (const a of this.open.values()) {
      a.terminal?.dispose();
      a.dispose();
    }
    this.open.clear();
  }

  private static key(sessionId: string, terminalId: string): string {
    return `${sessionId}|${terminalId}`;
  }

  /** The terminal events of agent/event; others are not for us. */
  handleEvent(ev: AgentEvent): void {
    if (!ev.terminalId) return;
    const key = Terminals.key(ev.sessionId, ev.terminalId);
    switch (ev.type) {
      case 'terminalStarted': {
        if (this.open.has(key)) return;
        const a = new AgentTerminal(ev.sessionId, ev.terminalId, ev.tty ?? false, this);
        this.open.set(key, a);
        // Shown in the terminal list, not brought to the front: the
        // conversation view shares the panel with the terminals.
        a.terminal = vscode.window.createTerminal({ name: terminalName(ev.command, ev.terminalId), pty: a, iconPath: new vscode.ThemeIcon('hubot') });
        break;
      }
      case 'terminalOutput':
        this.open.get(key)?.output(ev.data ?? '');
        break;
      case 'terminalExited':
        this.open.get(key)?.exited(ev.exitCode);
        break;
    }
  }

  /** The server went away: its commands went with it. */
  reset(): void {
    for (const a of this.open.values()) a.exited(undefined);
  }

  /** How many of the agent's commands still run (for the tests and the command). */
  get running(): number {
    return [...this.open.values()].filter((a) => a.running).length;
  }

  /**
   * What the user typed goes to the session in order: one request at a
   * time per terminal (the server may handle requests side by side), the
   * keys typed meanwhile sent together with the next.
   */
  typed(a: AgentTerminal, data: string): void {
    const w = this.typing.get(a) ?? { busy: false, buf: '' };
    this.typing.set(a, w);
    w.buf += data;
    if (!w.busy) void this.flushTyping(a, w);
  }

  private async flushTyping(a: AgentTerminal, w: { busy: boolean; buf: string }): Promise<void> {
    w.busy = true;
    try {
      while (w.buf !== '') {
        const data = w.buf;
        w.buf = '';
        await this.send(Methods.writeTerminal, { sessionId: a.sessionId, terminalId: a.terminalId, data });
      }
    } finally {
      w.busy = false;
      this.typing.delete(a);
    }
  }

  closedByUser(a: AgentTerminal): void {
    if (a.running) void this.send(Methods.killTerminal, { sessionId: a.sessionId, terminalId: a.terminalId });
  }

  private readonly typing = new Map<AgentTerminal, { busy: boolean; buf: string }>();

  private forget(key: string, a: AgentTerminal): void {
    this.open.delete(key);
    a.dispose();
  }

  private async send(method: string, params: object): Promise<void> {
    const c = this.client();
    if (!c) return;
    try {
      await c.sendRequest(method, params);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.log.warn(`${method}: ${msg}`);
      if ((e as { code?: number }).code === -32601) {
        if (this.toldUnsupported) return;
        this.toldUnsupported = true;
        void vscode.window.showWarningMessage('Agent: this agent-ls does not take typing into or stopping its terminals yet.');
        return;
      }
      void vscode.window.showErrorMessage(`Agent: ${visibleLine(msg)}`);
    }
  }
}
