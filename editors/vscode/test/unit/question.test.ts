import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answers, choose, complete, newQuestion } from '../../src/question';
import { renderQuestion } from '../../src/render';
import type { Question } from '../../src/protocol';

const questions: Question[] = [
  { id: 'db', header: 'Database', question: 'Which database?', options: [{ label: 'Postgres', description: 'the usual' }, { label: 'SQLite' }] },
  { id: 'auth', header: 'Auth', question: 'Which login?', options: [{ label: 'OAuth' }, { label: 'Password' }] },
];

test('each question takes an option or the user\u2019s own text; the answer keeps the questions\u2019 order', () => {
  const q = newQuestion('k', 's', 't', questions);
  assert.equal(complete(q), false);
  assert.equal(choose(q, 'auth', 1), true);
  assert.equal(complete(q), false);
  assert.equal(choose(q, 'db', 5), false, 'no such option');
  assert.equal(choose(q, 'nope', 0), false, 'no such question');
  assert.equal(choose(q, 'db', -1, '   '), false, 'blank text is no answer');
  assert.equal(choose(q, 'db', 0), true);
  assert.equal(choose(q, 'db', -1, ' DuckDB '), true, 'Other replaces the option');
  assert.equal(complete(q), true);
  assert.deepEqual(answers(q), { answers: [{ id: 'db', text: 'DuckDB' }, { id: 'auth', label: 'Password' }] });
});

test('a question card: options as buttons, an Other box, Send answers when there are several', () => {
  const q = newQuestion('k"1', 's', 't', questions);
  choose(q, 'db', 1);
  const html = renderQuestion(q);
  assert.match(html, /data-key="k&quot;1"/);
  assert.match(html, /<span class="tag">Database<\/span> Which database\?/);
  assert.match(html, /class="chosen option"[^>]*data-id="db" data-index="1"[^>]*>SQLite</);
  assert.match(html, /class="secondary option"[^>]*data-id="db" data-index="0" title="the usual">Postgres</);
  assert.equal((html.match(/input class="question-other"/g) ?? []).length, 2);
  assert.match(html, /data-action="questionSubmit"/);
  const one = renderQuestion(newQuestion('k2', 's', 't', [{ ...questions[0], question: 'Pick <one>\u202e' }]));
  assert.doesNotMatch(one, /questionSubmit/, 'one question: the pick answers it');
  assert.match(one, /Pick &lt;one&gt;\\u202e/);
});
