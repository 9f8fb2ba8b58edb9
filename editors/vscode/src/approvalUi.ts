// Answers agent/requestApproval with a notification (a modal dialog for
// dangerous commands) whose first button, Allow Once, is the default.
// The answer goes back as soon as the user clicks; when the turn ends
// first (Stop), the request is answered at once and the buttons no
// longer decide anything.

import * as vscode from 'vscode';
import { approvalPrompt, type Choice } from './approval';
import type { Conversation } from './agent';
import type { DiffView } from './diffView';
import type { ApprovalParams, Decision } from './protocol';

/** The answer to agent/requestApproval: a network question's allowPersist names its pattern. */
export interface Answer {
  decision: Decision;
  pattern?: string;
}

export class Approvals {
  private waiting = new Map<string, { params: ApprovalParams; resolve: (a: Answer) => void }>();

  constructor(
    private readonly conversation: Conversation,
    private readonly diffs: DiffView,
    private readonly log: vscode.LogOutputChannel,
  ) {
    conversation.onTurnEnded((t) => this.turnEnded(t.turnId));
  }

  private turnEnded(turnId: string): void {
    for (const [key, w] of this.waiting) if (key.startsWith(turnId + '|')) w.resolve({ decision: 'abort' });
  }

  async ask(p: ApprovalParams, token: vscode.CancellationToken): Promise<Answer> {
    const key = `${p.turnId}|${p.approvalId}`;
    const prompt = approvalPrompt(p);
    try {
      // The view shows the approval too, with the same buttons; the first
      // answer from either counts.
      const elsewhere = new Promise<Answer>((resolve) => {
        this.waiting.set(key, { params: p, resolve });
        token.onCancellationRequested(() => resolve({ decision: 'abort' }));
      });
      this.conversation.openApproval({ ...prompt, key, turnId: p.turnId });
      const answer = await Promise.race([this.askUser(p), elsewhere]);
      this.log.info(`approval ${p.approvalId} (${p.kind}): ${answer.decision}${answer.pattern ? ` ${answer.pattern}` : ''}`);
      return answer;
    } finally {
      this.waiting.delete(key);
      this.conversation.closeApproval(key);
    }
  }

  /** A button of the approval's card in the view. */
  async answer(key: string, choice: number): Promise<void> {
    const w = this.waiting.get(key);
    if (!w) return;
    const c = approvalPrompt(w.params).choices[choice];
    if (c?.decision) w.resolve(answerOf(c));
    else if (c?.showDiff) await this.showDiff(w.params);
  }

  private async showDiff(p: ApprovalParams): Promise<void> {
    for (const f of p.files ?? []) await this.diffs.show(f, p.diff ?? '', false);
  }

  private async askUser(p: ApprovalParams): Promise<Answer> {
    const prompt = approvalPrompt(p);
    for (;;) {
      const titles = prompt.choices.map((c) => c.title);
      const picked = prompt.modal
        ? await vscode.window.showWarningMessage(prompt.message, { modal: true, detail: prompt.detail }, ...titles)
        : await vscode.window.showWarningMessage(prompt.message, ...titles);
      const choice = prompt.choices.find((c) => c.title === picked);
      if (!choice) return { decision: 'rejectOnce' }; // dismissed: the protocol's null answer
      if (choice.decision) return answerOf(choice);
      await this.showDiff(p);
    }
  }
}

/** The answer a chosen button gives. */
function answerOf(c: Choice): Answer {
  return c.pattern ? { decision: c.decision!, pattern: c.pattern } : { decision: c.decision! };
}
