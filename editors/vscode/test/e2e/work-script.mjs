// The scripted model's side of the scenarios of work.test.mjs: the
// agent's terminals, the queue and steering, questions and plan mode.
// Each scenario's prompt carries a marker its steps serve.

/** A command that waits until the test makes the file `name` in the workspace. */
const waitFor = (name) => `while [ ! -e ${name} ]; do sleep 0.2; done`;

export const workPrompts = {
  terminal: 'ZQTERM start the watcher',
  type: 'ZQTYPE ask for a name',
  kill: 'ZQKILL start two servers',
  queue: 'ZQQUEUE run the slow build',
  pause: 'ZQPAUSE run the slow build again',
  question: 'ZQQUESTION set up the database',
  plan: 'ZQPLAN plan the rename',
  withdraw: 'ZQWITHDRAW ask me something',
  other: 'ZQOTHER set up the server',
  notify: 'ZQNOTIFY run the tests',
  mention: 'ZQMENTION what does this do:',
  rewind: 'ZQREWIND make add explicit',
  editOne: 'ZQEDITONE say goodbye properly',
  editTwo: 'ZQEDITTWO leave the notes alone',
};

/** The rewind scenario's patch of math.js, and the file after it. */
const mathPatch = '*** Begin Patch\n*** Update File: math.js\n@@\n function add(a, b) {\n-  return a + b;\n+  return a + b + 0; // explicit\n*** End Patch\n';
export const mathAfter = 'function add(a, b) {\n  return a + b + 0; // explicit\n}\n';

/** The edit scenario's patch of notes.txt. */
const notesPatch = '*** Begin Patch\n*** Update File: notes.txt\n@@\n hello again\n-bye\n+goodbye for now\n*** End Patch\n';

/** What the terminal scenario's command prints and waits for. */
export const terminalCommand = `echo hello-from-agent; ${waitFor('term-go')}; echo bye-from-agent`;

export const questions = [
  {
    id: 'db',
    header: 'Database',
    question: 'Which database should the app use?',
    options: [
      { label: 'Postgres', description: 'a server, for production' },
      { label: 'SQLite', description: 'a file, for development' },
    ],
  },
];

/** Two questions: one answered with an option, one in the user's own words. */
export const twoQuestions = [
  { id: 'lang', header: 'Language', question: 'Which language?', options: [{ label: 'Go', description: 'one binary' }, { label: 'Rust', description: 'no GC' }] },
  { id: 'port', header: 'Port', question: 'Which port?', options: [{ label: '8080', description: 'the usual' }, { label: '443', description: 'TLS' }] },
];

export const workScript = {
  steps: [
    { name: 'mention', bodyContains: 'ZQMENTION', reply: { items: [{ type: 'message', text: 'It adds two numbers.' }] } },
    { name: 'rewind-patch', bodyContains: 'ZQREWIND', reply: { items: [{ type: 'custom_tool_call', callId: 'rw1', name: 'apply_patch', input: mathPatch }] } },
    { name: 'rewind-answer', bodyContains: 'ZQREWIND', reply: { items: [{ type: 'message', text: 'add is explicit now.' }] } },
    { name: 'edit-patch', bodyContains: 'ZQEDITONE', reply: { items: [{ type: 'custom_tool_call', callId: 'ed1', name: 'apply_patch', input: notesPatch }] } },
    { name: 'edit-answer-one', bodyContains: 'ZQEDITONE', reply: { items: [{ type: 'message', text: 'Said goodbye properly.' }] } },
    { name: 'edit-answer-two', bodyContains: 'ZQEDITTWO', reply: { items: [{ type: 'message', text: 'Left the notes alone.' }] } },
    {
      name: 'term-start',
      bodyContains: 'ZQTERM',
      reply: { items: [{ type: 'function_call', callId: 'x1', name: 'exec_command', arguments: { cmd: terminalCommand, tty: true, yield_time_ms: 1000 } }] },
    },
    { name: 'term-answer', bodyContains: 'ZQTERM', reply: { items: [{ type: 'message', text: 'The watcher runs in a terminal.' }] } },
    {
      name: 'type-start',
      bodyContains: 'ZQTYPE',
      reply: { items: [{ type: 'function_call', callId: 'x2', name: 'exec_command', arguments: { cmd: "read -r -p 'name? ' n; echo hi-$n", tty: true, yield_time_ms: 1000 } }] },
    },
    { name: 'type-answer', bodyContains: 'ZQTYPE', reply: { items: [{ type: 'message', text: 'It waits for a name.' }] } },
    {
      name: 'kill-start',
      bodyContains: 'ZQKILL',
      reply: {
        items: [
          { type: 'function_call', callId: 'x3', name: 'exec_command', arguments: { cmd: 'echo long-one; sleep 313', yield_time_ms: 500 } },
          { type: 'function_call', callId: 'x4', name: 'exec_command', arguments: { cmd: 'echo long-two; sleep 317', yield_time_ms: 500 } },
        ],
      },
    },
    { name: 'kill-answer', bodyContains: 'ZQKILL', reply: { items: [{ type: 'message', text: 'Both run on.' }] } },
    {
      name: 'queue-run',
      bodyContains: 'ZQQUEUE',
      reply: { items: [{ type: 'function_call', callId: 'q1', name: 'shell', arguments: { command: ['bash', '-c', waitFor('queue-go')], timeout_ms: 300000 } }] },
    },
    { name: 'queue-first-done', bodyContains: 'ZQQUEUE', reply: { items: [{ type: 'message', text: 'The build is done, and I read your notes.' }] } },
    { name: 'queue-next', bodyContains: 'ZQQUEUE', reply: { items: [{ type: 'message', text: 'The queued prompt ran.' }] } },
    {
      name: 'pause-run',
      bodyContains: 'ZQPAUSE',
      reply: { items: [{ type: 'function_call', callId: 'p1', name: 'shell', arguments: { command: ['bash', '-c', waitFor('never-made')], timeout_ms: 300000 } }] },
    },
    { name: 'pause-next', bodyContains: 'ZQPAUSE', reply: { items: [{ type: 'message', text: 'The resumed prompt ran.' }] } },
    {
      name: 'question-ask',
      bodyContains: 'ZQQUESTION',
      reply: { items: [{ type: 'function_call', callId: 'u1', name: 'request_user_input', arguments: { questions } }] },
    },
    { name: 'question-answer', bodyContains: 'ZQQUESTION', reply: { items: [{ type: 'message', text: 'SQLite it is.' }] } },
    {
      name: 'other-ask',
      bodyContains: 'ZQOTHER',
      reply: { items: [{ type: 'function_call', callId: 'u3', name: 'request_user_input', arguments: { questions: twoQuestions } }] },
    },
    { name: 'other-answer', bodyContains: 'ZQOTHER', reply: { items: [{ type: 'message', text: 'Go on port 8443.' }] } },
    {
      name: 'withdraw-ask',
      bodyContains: 'ZQWITHDRAW',
      reply: { items: [{ type: 'function_call', callId: 'u2', name: 'request_user_input', arguments: { questions } }] },
    },
    {
      name: 'notify-run',
      bodyContains: 'ZQNOTIFY',
      reply: { items: [{ type: 'function_call', callId: 'n1', name: 'shell', arguments: { command: ['bash', '-c', waitFor('notify-go')], timeout_ms: 300000 } }] },
    },
    { name: 'notify-answer', bodyContains: 'ZQNOTIFY', reply: { items: [{ type: 'message', text: 'The tests passed while you looked away.' }] } },
    {
      name: 'plan-propose',
      bodyContains: 'ZQPLAN',
      reply: {
        items: [
          {
            type: 'function_call',
            callId: 'pl1',
            name: 'update_plan',
            arguments: { plan: [{ step: 'Rename add to sum', status: 'pending' }, { step: 'Update the callers', status: 'pending' }] },
          },
        ],
      },
    },
    { name: 'plan-text', bodyContains: 'ZQPLAN', reply: { items: [{ type: 'message', text: 'That is the plan: rename add to sum.' }] } },
    { name: 'plan-carry-out', bodyContains: 'ZQPLAN', reply: { items: [{ type: 'message', text: 'Carrying out the plan now.' }] } },
  ],
};
