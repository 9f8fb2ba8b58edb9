// The status bar item's text for each state. Pure.

import { visibleLine } from './visible';

export function statusText(step: string | undefined, approvals: number, usage: string, questions = 0): { text: string; state: 'idle' | 'working' | 'approval' } {
  const tail = usage ? ` · ${usage}` : '';
  if (approvals > 0) return { text: `$(bell-dot) Agent: needs approval${tail}`, state: 'approval' };
  if (questions > 0) return { text: `$(bell-dot) Agent: asks you${tail}`, state: 'approval' };
  // The step is a tool call's title, the model's words: its hidden
  // characters are escaped.
  if (step) return { text: `$(sync~spin) Agent: ${visibleLine(step)}${tail}`, state: 'working' };
  return { text: `$(hubot) Agent${tail}`, state: 'idle' };
}
