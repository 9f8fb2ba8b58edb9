// The status bar item: idle, working (with the current step) or needs
// approval, and the session's token use; a click opens the view.

import * as vscode from 'vscode';
import { currentStep, usageLabel } from './conversation';
import type { Conversation } from './agent';
import { statusText } from './statusText';

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('agentLs.status', vscode.StatusBarAlignment.Right, 100);

  constructor(private readonly conversation: Conversation) {
    this.item.name = 'agent-ls';
    this.item.command = 'agentLs.conversation.focus';
    conversation.onDidChange(() => this.update());
    this.update();
    this.item.show();
  }

  update(): void {
    const s = this.conversation.state;
    const { text, state } = statusText(
      currentStep(s),
      this.conversation.approvals.length + this.conversation.reviews.length,
      usageLabel(s.usage),
      this.conversation.questions.length,
    );
    this.item.text = text;
    this.item.tooltip = `agent-ls: ${state === 'approval' ? 'waits for you' : state} — click to open the conversation`;
    this.item.backgroundColor = state === 'approval' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    void vscode.commands.executeCommand('setContext', 'agentLs.working', state !== 'idle');
  }

  dispose(): void {
    this.item.dispose();
  }
}
