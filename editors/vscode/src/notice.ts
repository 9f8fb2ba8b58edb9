// What the extension says when the agent needs the user and the user is
// not looking: a turn ended, or it waits on an answer (a question, a
// review). Pure, for the unit tests; notify.ts shows it. The text is
// fixed, never the model's.

export type Moment =
  | { kind: 'turnEnded'; status: string | undefined; queueGoesOn: boolean }
  | { kind: 'waiting'; on: 'approval' | 'question' | 'review' };

/**
 * The notification's text, or undefined for none: the view is on screen
 * in a focused window; the user stopped the turn; the next queued prompt
 * starts at once; an approval (it has its own notification).
 */
export function notice(m: Moment, looking: boolean): string | undefined {
  if (looking) return undefined;
  if (m.kind === 'waiting') {
    if (m.on === 'question') return 'Agent: a question waits for your answer.';
    if (m.on === 'review') return 'Agent: a change waits for your review.';
    return undefined;
  }
  if (m.queueGoesOn) return undefined;
  if (m.status === 'failed') return 'Agent: the turn failed.';
  if (m.status === 'completed' || m.status === undefined) return 'Agent: the turn is done.';
  return undefined;
}
