// The model's questions to the user (agent/askUser) as the view keeps
// them: each question's pick, an option or the user's own words
// ("Other"), and the answer they make. Pure, for the unit tests;
// questionUi.ts answers the request.

import type { Question, QuestionAnswer } from './protocol';

export interface Pick {
  label?: string;
  text?: string;
}

export interface OpenQuestion {
  key: string;
  sessionId: string;
  turnId: string;
  questions: Question[];
  /** By question id: what the user chose so far. */
  picks: Record<string, Pick>;
}

export function newQuestion(key: string, sessionId: string, turnId: string, questions: Question[]): OpenQuestion {
  return { key, sessionId, turnId, questions: questions ?? [], picks: {} };
}

/**
 * Records an option (its index among the question's options) or, with
 * index -1, the user's own text. Returns whether the pick is valid.
 */
export function choose(q: OpenQuestion, id: string, index: number, text?: string): boolean {
  const question = q.questions.find((x) => x.id === id);
  if (!question) return false;
  if (index < 0) {
    const t = (text ?? '').trim();
    if (!t) return false;
    q.picks[id] = { text: t };
    return true;
  }
  const o = question.options[index];
  if (!o) return false;
  q.picks[id] = { label: o.label };
  return true;
}

/** Every question has an answer. */
export function complete(q: OpenQuestion): boolean {
  return q.questions.every((x) => q.picks[x.id]?.label !== undefined || !!q.picks[x.id]?.text);
}

/** The agent/askUser result, in the questions' order. */
export function answers(q: OpenQuestion): { answers: QuestionAnswer[] } {
  return {
    answers: q.questions.map((x) => {
      const p = q.picks[x.id] ?? {};
      return p.text !== undefined ? { id: x.id, text: p.text } : { id: x.id, label: p.label };
    }),
  };
}
