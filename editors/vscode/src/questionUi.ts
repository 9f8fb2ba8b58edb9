// Answers agent/askUser: the model's questions show as a card in the
// conversation view, each with its options as buttons and an "Other" box
// for the user's own words. A single question is answered by the click
// (or the text) that answers it; several are sent together once each has
// an answer. When the turn is interrupted the server withdraws the
// request ($/cancelRequest) and the card goes.

import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient/node';
import type { Conversation } from './agent';
import type { AskUserParams, QuestionAnswer } from './protocol';
import { answers, choose, complete, newQuestion, type OpenQuestion } from './question';

/** What the view does to an open question. */
export type QuestionAction =
  | { action: 'option'; id: string; index: number }
  | { action: 'other'; id: string; text: string }
  | { action: 'submit' };

interface Waiting {
  question: OpenQuestion;
  resolve: (a: { answers: QuestionAnswer[] }) => void;
  reject: (e: Error) => void;
}

const requestCancelled = -32800;

export class Questions implements vscode.Disposable {
  private waiting = new Map<string, Waiting>();
  private next = 0;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly conversation: Conversation,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions = [conversation.onTurnEnded((t) => this.withdraw((w) => w.question.turnId === t.turnId))];
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }

  async ask(p: AskUserParams, token: vscode.CancellationToken): Promise<{ answers: QuestionAnswer[] }> {
    const key = `${p.turnId}|q${++this.next}`;
    const question = newQuestion(key, p.sessionId, p.turnId, p.questions);
    try {
      const answered = new Promise<{ answers: QuestionAnswer[] }>((resolve, reject) => {
        this.waiting.set(key, { question, resolve, reject });
        token.onCancellationRequested(() => reject(new ResponseError(requestCancelled, 'the question was withdrawn')));
      });
      this.conversation.openQuestion(question);
      const a = await answered;
      this.log.info(`question ${key}: answered`);
      return a;
    } finally {
      this.waiting.delete(key);
      this.conversation.closeQuestion(key);
    }
  }

  /** The server or the turn is gone: the questions are no longer asked. */
  withdraw(which: (w: Waiting) => boolean = () => true): void {
    for (const w of this.waiting.values()) if (which(w)) w.reject(new ResponseError(requestCancelled, 'the question was withdrawn'));
  }

  /** A button or the Other box of a question card in the view. */
  act(key: string, a: QuestionAction): void {
    const w = this.waiting.get(key);
    if (!w) return;
    const q = w.question;
    if (a.action === 'submit') {
      if (complete(q)) w.resolve(answers(q));
      return;
    }
    const ok = a.action === 'option' ? choose(q, a.id, a.index) : choose(q, a.id, -1, a.text);
    if (!ok) return;
    // One question: the pick is the answer.
    if (q.questions.length === 1) {
      w.resolve(answers(q));
      return;
    }
    this.conversation.questionChanged();
  }
}
