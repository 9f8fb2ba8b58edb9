// The conversation as the view shows it: a pure reducer from agent/event
// notifications to a state the webview renders. The extension host keeps
// one (so the view can be hidden, shown and rebuilt) and the webview runs
// the same code on the events it is sent.

import type { AgentEvent, FileChangeEntry, PlanStep, QueuedPrompt, RateLimits, SessionMode, Tokens } from './protocol';

export type Item =
  | { kind: 'message'; itemId: string; text: string; done: boolean }
  | { kind: 'reasoning'; itemId: string; text: string; done: boolean }
  | {
      kind: 'tool';
      callId: string;
      tool: string;
      toolKind: string;
      title: string;
      output: string;
      status: 'running' | 'completed' | 'failed' | 'rejected';
      durationMs?: number;
    }
  | { kind: 'fileChange'; callId: string; changes: FileChangeEntry[]; diff: string; status: string }
  | { kind: 'plan'; explanation?: string; steps: PlanStep[] }
  | { kind: 'notice'; text: string; callId?: string }
  /** A message of the user that entered the turn while it ran. */
  | { kind: 'steered'; text: string };

export interface Turn {
  turnId: string;
  prompt: string;
  items: Item[];
  status: 'running' | 'completed' | 'interrupted' | 'failed';
  error?: string;
  /** The turn ran in plan mode: it changed nothing and ends with a plan. */
  plan?: boolean;
  /** The turn was rewound (agent/rewind): the model no longer sees it. */
  rewound?: boolean;
}

export interface Usage {
  total: Tokens;
  contextTokens?: number;
  contextWindow?: number;
  /** The provider's limits left after the last response, when it says. */
  rateLimits?: RateLimits;
}

export interface State {
  sessionId?: string;
  turns: Turn[];
  usage?: Usage;
  /** The last seq seen, to notice a gap. */
  seq: number;
  /** The prompts waiting to run after the running turn, first first. */
  queue: QueuedPrompt[];
  /** The queue waits for the user (after a turn that did not complete). */
  queuePaused: boolean;
  /** The session's mode: plan investigates and proposes, changes nothing. */
  mode: SessionMode;
}

/** Bounds the live output kept per command card (the tail is what matters). */
export const maxOutputChars = 20000;

export function emptyState(sessionId?: string): State {
  return { sessionId, turns: [], seq: 0, queue: [], queuePaused: false, mode: 'default' };
}

export function running(s: State): Turn | undefined {
  const t = s.turns[s.turns.length - 1];
  return t && t.status === 'running' ? t : undefined;
}

/**
 * The session has a plan to approve: it is in plan mode, nothing runs,
 * its last turn ran in plan mode and completed, and no approval waits in
 * the queue already.
 */
export function planToApprove(s: State): boolean {
  const last = s.turns[s.turns.length - 1];
  return s.mode === 'plan' && !!last?.plan && last.status === 'completed' && !s.queue.some((q) => q.mode === 'default');
}

/** What a running turn is doing now, in a few words (status bar). */
export function currentStep(s: State): string | undefined {
  const t = running(s);
  if (!t) return undefined;
  for (let i = t.items.length - 1; i >= 0; i--) {
    const it = t.items[i];
    if (it.kind === 'tool' && it.status === 'running') return it.title || it.tool;
    if (it.kind === 'message' && !it.done) return 'Writing the answer';
    if (it.kind === 'reasoning' && !it.done) return 'Thinking';
  }
  return 'Waiting for the model';
}

function turnFor(s: State, ev: AgentEvent): Turn {
  let t = s.turns.find((x) => x.turnId === ev.turnId);
  if (!t) {
    t = { turnId: ev.turnId, prompt: ev.prompt ?? '', items: [], status: 'running' };
    s.turns.push(t);
  }
  return t;
}

function findItem<K extends Item['kind']>(t: Turn, kind: K, pred: (it: Extract<Item, { kind: K }>) => boolean) {
  return t.items.find((it) => it.kind === kind && pred(it as Extract<Item, { kind: K }>)) as
    | Extract<Item, { kind: K }>
    | undefined;
}

function textItem(t: Turn, kind: 'message' | 'reasoning', itemId: string): { text: string; done: boolean } {
  const found = t.items.find((it) => it.kind === kind && it.itemId === itemId) as { text: string; done: boolean } | undefined;
  if (found) return found;
  const it = { kind, itemId, text: '', done: false };
  t.items.push(it);
  return it;
}

function toolItem(t: Turn, ev: AgentEvent) {
  let it = findItem(t, 'tool', (x) => x.callId === ev.callId);
  if (!it) {
    it = { kind: 'tool', callId: ev.callId ?? '', tool: ev.tool ?? '', toolKind: ev.kind ?? 'other', title: ev.title ?? ev.tool ?? '', output: '', status: 'running' };
    t.items.push(it);
  }
  return it;
}

/**
 * Applies one event to the state, in place, and returns it. Events of
 * another session than the state's are ignored; the caller decides which
 * session the view follows.
 */
export function reduce(s: State, ev: AgentEvent): State {
  if (s.sessionId && ev.sessionId !== s.sessionId) return s;
  s.sessionId = ev.sessionId;
  s.seq = Math.max(s.seq, ev.seq ?? 0);
  switch (ev.type) {
    case 'usage':
      s.usage = addUsage(s.usage, ev);
      return s;
    // Session-level events: between turns their turnId is "".
    case 'queueChanged':
      s.queue = (ev.items ?? []).map((q) => ({ turnId: q.turnId, prompt: q.prompt, ...(q.mode ? { mode: q.mode } : {}) }));
      s.queuePaused = !!ev.paused && s.queue.length > 0;
      return s;
    case 'modeChanged':
      if (ev.mode === 'plan' || ev.mode === 'default') s.mode = ev.mode;
      return s;
    case 'rewound':
      for (const t of s.turns) if (ev.turnIds?.includes(t.turnId)) t.rewound = true;
      return s;
    case 'terminalStarted':
    case 'terminalOutput':
    case 'terminalExited':
      return s; // the terminals show them (terminals.ts)
    case 'networkAccess':
      // A terminal's connection between turns belongs to no turn: the
      // terminal's output shows what its command did.
      if (!ev.turnId) return s;
      break;
  }
  const t = turnFor(s, ev);
  switch (ev.type) {
    case 'turnStarted':
      t.prompt = ev.prompt ?? t.prompt;
      t.status = 'running';
      if (ev.mode === 'plan') t.plan = true;
      break;
    case 'messageDelta':
    case 'reasoningDelta': {
      const it = textItem(t, ev.type === 'messageDelta' ? 'message' : 'reasoning', ev.itemId ?? '');
      if (!it.done) it.text += ev.delta ?? '';
      break;
    }
    case 'message':
    case 'reasoning': {
      const it = textItem(t, ev.type, ev.itemId ?? '');
      it.text = ev.text ?? it.text; // the whole text wins over what streamed
      it.done = true;
      break;
    }
    case 'toolCall': {
      if (ev.tool === 'update_plan') break; // the plan event shows it
      const it = toolItem(t, ev);
      it.title = ev.title || it.title;
      it.toolKind = ev.kind ?? it.toolKind;
      break;
    }
    case 'execOutput': {
      const it = toolItem(t, ev);
      it.output += ev.chunk ?? '';
      if (it.output.length > maxOutputChars) it.output = '…' + it.output.slice(it.output.length - maxOutputChars);
      break;
    }
    case 'toolResult': {
      if (ev.tool === 'update_plan') break;
      const it = toolItem(t, ev);
      it.status = (ev.status as 'completed' | 'failed' | 'rejected') ?? 'completed';
      it.durationMs = ev.durationMs;
      if (!it.output && ev.output && it.toolKind === 'execute') it.output = ev.output;
      break;
    }
    case 'fileChange': {
      const it = findItem(t, 'fileChange', (x) => x.callId === ev.callId);
      if (it) {
        it.changes = ev.changes ?? it.changes;
        it.diff = ev.diff ?? it.diff;
        it.status = ev.status ?? it.status;
      } else {
        t.items.push({ kind: 'fileChange', callId: ev.callId ?? '', changes: ev.changes ?? [], diff: ev.diff ?? '', status: ev.status ?? '' });
      }
      break;
    }
    case 'plan': {
      const it = findItem(t, 'plan', () => true);
      if (it) {
        it.steps = ev.steps ?? [];
        it.explanation = ev.explanation;
      } else {
        t.items.push({ kind: 'plan', steps: ev.steps ?? [], explanation: ev.explanation });
      }
      break;
    }
    case 'retry':
      t.items.push({ kind: 'notice', text: `Retrying (attempt ${ev.attempt ?? '?'}): ${ev.message ?? ''}` });
      break;
    case 'steered':
      t.items.push({ kind: 'steered', text: ev.text ?? '' });
      break;
    case 'webSearch': {
      // "searching" when it begins, then its end in the same place.
      const sources = (ev.sources ?? []).map((s) => s.url).join(', ');
      const text = ev.query ? `Web search: ${ev.query} (${ev.status ?? ''})${sources ? ` — ${sources}` : ''}` : `Searching the web… (${ev.status ?? ''})`;
      const shown = ev.callId ? t.items.find((it) => it.kind === 'notice' && it.callId === ev.callId) : undefined;
      if (shown && shown.kind === 'notice') shown.text = text;
      else t.items.push({ kind: 'notice', text, callId: ev.callId });
      break;
    }
    case 'networkAccess':
      t.items.push({ kind: 'notice', text: networkText(ev) });
      break;
    case 'compacted':
      t.items.push({ kind: 'notice', text: 'Older history was summarised to fit the context.' });
      break;
    case 'turnCompleted':
      t.status = (ev.status as Turn['status']) ?? 'completed';
      t.error = ev.error;
      for (const it of t.items) {
        if (it.kind === 'message' || it.kind === 'reasoning') it.done = true;
        if (it.kind === 'tool' && it.status === 'running') it.status = t.status === 'completed' ? 'completed' : 'failed';
      }
      break;
  }
  return s;
}

/** One connection through the network proxy: "Network: registry.npmjs.org:443 allowed, 1.2 MB". */
export function networkText(ev: AgentEvent): string {
  const host = ev.host && ev.host.includes(':') ? `[${ev.host}]` : (ev.host ?? '');
  return `Network: ${host}:${ev.port ?? ''} ${ev.decision ?? ''}${ev.decision === 'allowed' ? `, ${byteCount(ev.bytes ?? 0)}` : ''}`;
}

/** A byte count in decimal units, as a user reads a download's size. */
export function byteCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} kB`;
  return `${n} B`;
}

const tokenFields = ['inputTokens', 'cachedInputTokens', 'outputTokens', 'reasoningTokens'] as const;

/**
 * The session's token use after one response's usage event: its total
 * when the server sends one, else the sum of the responses so far. The
 * context is what the last request carried.
 */
export function addUsage(prev: Usage | undefined, ev: AgentEvent): Usage {
  let total = ev.total;
  if (!total) {
    total = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, reasoningTokens: 0 };
    for (const f of tokenFields) total[f] = (prev?.total[f] ?? 0) + (ev[f] ?? 0);
  }
  return {
    total,
    contextTokens: ev.contextTokens ?? ev.inputTokens ?? prev?.contextTokens,
    contextWindow: ev.contextWindow ?? prev?.contextWindow,
    rateLimits: ev.rateLimits ?? prev?.rateLimits,
  };
}

/** Token use in a few characters: "12.3k tokens (40% of context)". */
export function usageLabel(u: Usage | undefined): string {
  if (!u) return '';
  const used = u.total.inputTokens + u.total.outputTokens;
  let s = `${compact(used)} tokens`;
  if (u.contextTokens && u.contextWindow) s += ` · ${Math.round((100 * u.contextTokens) / u.contextWindow)}% of context`;
  const limits = limitsLabel(u.rateLimits);
  if (limits) s += ` · ${limits}`;
  return s;
}

/** The rate limits left in a few characters: "40 req, 1.2k tok left"; "" when unknown. */
export function limitsLabel(rl: RateLimits | undefined): string {
  if (!rl) return '';
  const left: string[] = [];
  if (rl.remainingRequests !== undefined) left.push(`${compact(rl.remainingRequests)} req`);
  if (rl.remainingTokens !== undefined) left.push(`${compact(rl.remainingTokens)} tok`);
  return left.length ? `${left.join(', ')} left` : '';
}

export function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Whether a session's cwd (a file URI) is the workspace folder (a file URI too). */
export function sameFolder(a: string, b: string): boolean {
  const norm = (u: string) => decodeURIComponent(u).replace(/\/+$/, '').toLowerCase();
  return norm(a) === norm(b);
}
