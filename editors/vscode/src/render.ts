// Turns the conversation state into HTML for the webview. Pure (no DOM):
// the webview sets innerHTML from it and the unit tests read it. Markdown
// goes through markdown-it with raw HTML off, so the model's text cannot
// inject markup; everything else is escaped here.

import MarkdownIt from 'markdown-it';
import type { Prompt } from './approval';
import type { Item, State, Turn } from './conversation';
import { usageLabel } from './conversation';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export function markdown(text: string): string {
  return md.render(text);
}

/** The file's name and its folder, for a change's line. */
export function fileLabel(uri: string): string {
  const path = decodeURIComponent(uri.replace(/^file:\/\//, ''));
  const i = path.lastIndexOf('/');
  return i < 0 ? path : path.slice(i + 1);
}

const statusIcon: Record<string, string> = {
  completed: '✓',
  failed: '✗',
  rejected: '⊘',
  applied: '✓',
  proposed: '…',
  interrupted: '■',
};

export function renderItem(it: Item, turnId: string): string {
  switch (it.kind) {
    case 'message':
      return `<div class="message${it.done ? '' : ' streaming'}">${markdown(it.text)}</div>`;
    case 'reasoning':
      return `<details class="reasoning"><summary>Thinking</summary>${markdown(it.text)}</details>`;
    case 'tool': {
      const out = it.output
        ? `<pre class="output">${escapeHtml(it.output)}</pre>`
        : '';
      const dur = it.durationMs !== undefined ? ` <span class="dim">${(it.durationMs / 1000).toFixed(1)} s</span>` : '';
      return (
        `<div class="card tool ${it.status}" data-call="${escapeHtml(it.callId)}">` +
        `<div class="card-head">${it.status === 'running' ? '<span class="spinner"></span>' : `<span class="icon">${statusIcon[it.status] ?? ''}</span>`} ` +
        `<span class="title">${escapeHtml(it.title || it.tool)}</span>${dur}</div>${out}</div>`
      );
    }
    case 'fileChange': {
      const rows = it.changes
        .map((c, i) => {
          const name = c.kind === 'move' && c.newUri ? `${fileLabel(c.uri)} → ${fileLabel(c.newUri)}` : fileLabel(c.uri);
          return (
            `<div class="change"><span class="file" title="${escapeHtml(c.uri)}">${escapeHtml(name)}</span> ` +
            `<span class="add">+${c.additions}</span> <span class="del">-${c.deletions}</span> ` +
            `<button class="link" data-action="diff" data-turn="${escapeHtml(turnId)}" data-call="${escapeHtml(it.callId)}" data-index="${i}">Diff</button></div>`
          );
        })
        .join('');
      return `<div class="card filechange ${escapeHtml(it.status)}"><div class="card-head"><span class="icon">${statusIcon[it.status] ?? ''}</span> <span class="title">${escapeHtml(changeTitle(it.status))}</span></div>${rows}</div>`;
    }
    case 'plan': {
      const steps = it.steps
        .map((p) => {
          const mark = p.status === 'completed' ? '☑' : p.status === 'in_progress' ? '◐' : '☐';
          return `<li class="step ${p.status}"><span class="mark">${mark}</span> ${escapeHtml(p.step)}</li>`;
        })
        .join('');
      const why = it.explanation ? `<div class="dim">${escapeHtml(it.explanation)}</div>` : '';
      return `<div class="card plan"><div class="card-head">Plan</div>${why}<ul class="checklist">${steps}</ul></div>`;
    }
    case 'notice':
      return `<div class="notice dim">${escapeHtml(it.text)}</div>`;
  }
}

function changeTitle(status: string): string {
  switch (status) {
    case 'applied':
      return 'Changed files';
    case 'proposed':
      return 'Proposed changes';
    case 'rejected':
      return 'Rejected changes';
    case 'failed':
      return 'Changes that failed';
  }
  return 'File changes';
}

export function renderTurn(t: Turn): string {
  const items = t.items.map((it) => renderItem(it, t.turnId)).join('');
  let end = '';
  if (t.status === 'interrupted') end = `<div class="turn-end interrupted">■ Stopped</div>`;
  else if (t.status === 'failed') end = `<div class="turn-end failed">✗ ${escapeHtml(t.error || 'The turn failed')}</div>`;
  else if (t.status === 'running') end = `<div class="turn-end working"><span class="spinner"></span> Working…</div>`;
  return `<section class="turn ${t.status}" data-turn="${escapeHtml(t.turnId)}"><div class="prompt">${escapeHtml(t.prompt)}</div>${items}${end}</section>`;
}

export function renderState(s: State): { turns: string; usage: string; working: boolean } {
  const last = s.turns[s.turns.length - 1];
  return {
    turns: s.turns.map(renderTurn).join(''),
    usage: usageLabel(s.usage),
    working: !!last && last.status === 'running',
  };
}

/** An approval waiting for the user: what, where, why, and the buttons. */
export function renderApproval(a: Prompt & { key: string }): string {
  const buttons = a.choices
    .map((c, i) => `<button class="${i === 0 ? '' : 'secondary'}" data-action="approval" data-key="${escapeHtml(a.key)}" data-index="${i}">${escapeHtml(c.title)}</button>`)
    .join(' ');
  const head = a.modal ? a.message : a.message.replace(/ \([^]*\)$/, '');
  const detail = a.detail ? `<pre class="detail">${escapeHtml(a.detail)}</pre>` : '';
  return `<div class="card approval"><div class="card-head"><span class="icon">⚠</span> <span class="title">${escapeHtml(head)}</span></div>${detail}<div class="actions">${buttons}</div></div>`;
}
