// Notifications with "Show" when a turn ends or the agent starts to wait
// on the user while the conversation view is hidden or the window is in
// the background (notice.ts says when and what).

import * as vscode from 'vscode';
import type { Conversation } from './agent';
import { notice, type Moment } from './notice';
import type { ConversationView } from './view';

export function notifications(conversation: Conversation, view: ConversationView): vscode.Disposable {
  const looking = () => view.visible && vscode.window.state.focused;
  const show = (m: Moment) => {
    const text = notice(m, looking());
    if (!text) return;
    const shown = m.kind === 'turnEnded' && m.status === 'failed' ? vscode.window.showWarningMessage(text, 'Show') : vscode.window.showInformationMessage(text, 'Show');
    void shown.then((picked) => picked === 'Show' && view.show());
  };
  const subs = [
    conversation.onTurnEnded((t) => {
      // Turns of the session the view follows; a queued prompt that
      // starts next keeps the user's attention where it is.
      const s = conversation.state;
      if (t.sessionId !== s.sessionId) return;
      show({ kind: 'turnEnded', status: t.status, queueGoesOn: t.status === 'completed' && s.queue.length > 0 && !s.queuePaused });
    }),
    conversation.onWaitingForUser((on) => show({ kind: 'waiting', on })),
  ];
  return vscode.Disposable.from(...subs);
}
