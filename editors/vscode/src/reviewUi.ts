// Answers agent/requestReview (protocol section 5.5) when the setting
// agentLs.reviewChanges is on: each file of the proposed change opens in
// VS Code's diff editor with Accept/Reject CodeLenses on every hunk, and
// the conversation view shows the same review with its buttons and a
// comment box. The answer goes back when the user applies the review
// (hunks left undecided are not applied); when the turn ends first
// (Stop), the request is answered at once and the review closes.

import * as vscode from 'vscode';
import { visibleLine } from './visible';
import type { Conversation } from './agent';
import { diffScheme, showProposal, type DiffView } from './diffView';
import type { ReviewAnswer, ReviewParams } from './protocol';
import { answer, counts, firstChangedLine, newReview, setAll, setHunk, type Review } from './review';

/** What the view and the CodeLenses may do to an open review. */
export type ReviewAction =
  | { action: 'hunk'; file: number; hunk: number; accept: boolean }
  | { action: 'all'; accept: boolean }
  | { action: 'submit' }
  | { action: 'diff'; file: number }
  | { action: 'comment'; text: string };

/** How many diff editors a review opens by itself. */
const maxDiffsOpened = 5;

interface Waiting {
  review: Review;
  resolve: (a: ReviewAnswer) => void;
  /** The diff editors' right sides, by uri: which file they show. */
  proposed: Map<string, number>;
}

export class Reviews implements vscode.CodeLensProvider, vscode.Disposable {
  private waiting = new Map<string, Waiting>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly conversation: Conversation,
    private readonly diffs: DiffView,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions = [
      conversation.onTurnEnded((t) => this.turnEnded(t.turnId)),
      vscode.languages.registerCodeLensProvider({ scheme: diffScheme }, this),
      vscode.commands.registerCommand('agentLs.review', (key: string, a: ReviewAction) => this.act(key, a)),
    ];
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
    this.lensesChanged.dispose();
  }

  private turnEnded(turnId: string): void {
    for (const [key, w] of this.waiting) if (key.startsWith(turnId + '|')) w.resolve({ decision: 'reject' });
  }

  async ask(p: ReviewParams, token: vscode.CancellationToken): Promise<ReviewAnswer> {
    const review = newReview(p);
    const w = { review, proposed: new Map<string, number>() } as Waiting;
    const done = new Promise<ReviewAnswer>((resolve) => {
      w.resolve = resolve;
      token.onCancellationRequested(() => resolve({ decision: 'reject' }));
    });
    this.waiting.set(review.key, w);
    try {
      this.conversation.openReview(review);
      // The first few files open at once; the view's Diff buttons open the rest.
      for (let i = 0; i < Math.min(review.files.length, maxDiffsOpened); i++) await this.openDiff(w, i);
      const a = await done;
      this.log.info(`review ${p.callId}: ${a.decision}${a.hunks ? ` (${a.hunks.length} hunk(s) accepted)` : ''}`);
      return a;
    } finally {
      this.waiting.delete(review.key);
      this.conversation.closeReview(review.key);
      await this.closeDiffs(w);
      this.lensesChanged.fire();
    }
  }

  /** A button of the view or a CodeLens. */
  async act(key: string, a: ReviewAction): Promise<void> {
    const w = this.waiting.get(key);
    if (!w) return;
    const r = w.review;
    switch (a.action) {
      case 'hunk':
        setHunk(r, a.file, a.hunk, a.accept);
        break;
      case 'all':
        setAll(r, a.accept);
        w.resolve(answer(r));
        return;
      case 'submit':
        w.resolve(answer(r));
        return;
      case 'diff':
        await this.openDiff(w, a.file);
        return;
      case 'comment':
        r.comment = a.text;
        return; // the view has it already
    }
    this.conversation.reviewChanged();
    this.lensesChanged.fire();
  }

  private async openDiff(w: Waiting, file: number): Promise<void> {
    const f = w.review.files[file];
    if (!f || f.hunks.length === 0) return;
    try {
      const right = await showProposal(this.diffs, f.uri, f.kind, f.diff);
      if (right) w.proposed.set(right.toString(), file);
      this.lensesChanged.fire();
    } catch (e) {
      this.log.warn(`cannot show the proposed change of ${f.uri}: ${visibleLine(e instanceof Error ? e.message : String(e))}`);
    }
  }

  private async closeDiffs(w: Waiting): Promise<void> {
    const tabs = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .filter((t) => t.input instanceof vscode.TabInputTextDiff && w.proposed.has(t.input.modified.toString()));
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true).then(undefined, () => undefined);
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    for (const w of this.waiting.values()) {
      const file = w.proposed.get(doc.uri.toString());
      if (file === undefined) continue;
      const key = w.review.key;
      const lenses: vscode.CodeLens[] = [];
      const c = counts(w.review);
      const top = new vscode.Range(0, 0, 0, 0);
      lenses.push(
        new vscode.CodeLens(top, { title: `Apply review (${c.accepted} accepted, ${c.rejected + c.open} not)`, command: 'agentLs.review', arguments: [key, { action: 'submit' }] }),
        new vscode.CodeLens(top, { title: 'Accept all', command: 'agentLs.review', arguments: [key, { action: 'all', accept: true }] }),
        new vscode.CodeLens(top, { title: 'Reject all', command: 'agentLs.review', arguments: [key, { action: 'all', accept: false }] }),
      );
      w.review.files[file].hunks.forEach((h, i) => {
        const at = new vscode.Range(firstChangedLine(h), 0, firstChangedLine(h), 0);
        const state = h.accept === true ? '✓ accepted' : h.accept === false ? '✗ rejected' : 'undecided';
        lenses.push(
          new vscode.CodeLens(at, { title: `Hunk ${i + 1}: ${state}`, command: '' }),
          new vscode.CodeLens(at, { title: 'Accept', command: 'agentLs.review', arguments: [key, { action: 'hunk', file, hunk: i, accept: true }] }),
          new vscode.CodeLens(at, { title: 'Reject', command: 'agentLs.review', arguments: [key, { action: 'hunk', file, hunk: i, accept: false }] }),
        );
      });
      return lenses;
    }
    return [];
  }
}
