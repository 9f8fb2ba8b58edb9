-- What the Neovim plugin shows of hostile text: its conversation buffer,
-- its approval prompts and its messages escape control and bidi
-- characters as agent-ls does (internal/textcut), and the approval
-- prompt quotes the command word by word as agent-ls does
-- (agent.QuoteCommand). Run by TestNeovimPluginShowsControlsEscaped with
-- the plugin on the runtimepath; prints VISIBLE OK or the failures.
local failures = {}
local function fail(msg)
  table.insert(failures, msg)
end
local function eq(what, got, want)
  if got ~= want then
    fail(string.format('%s: got %q, want %q', what, tostring(got), tostring(want)))
  end
end

-- hidden finds a character that should have been escaped.
local function hidden(s)
  return s:find('[%z\1-\8\11-\31\127]') or s:find('\194[\128-\159]') or s:find('\226\128[\139-\143\170-\174]')
    or s:find('\226\129[\166-\169]')
end

local hostile = 'rm -rf ~ \r\27[2K? run ls -la'
local osc52 = '\27]52;c;cm0gLXJmIH4=\7'
local rlo = '\226\128\174' -- U+202E

-- section runs f, a failure of which fails only that section.
local function section(name, f)
  local ok, err = pcall(f)
  if not ok then
    fail(name .. ': error: ' .. tostring(err))
  end
end

section('the escaper', function()
  -- Beside Go's table (internal/textcut).
  local visible = require('agent-ls.visible')
  for _, c in ipairs({
    { 'ls -la', 'ls -la', 'ls -la' },
    { 'a\tb\nc', 'a\tb\nc', 'a\\tb\\nc' },
    { hostile, 'rm -rf ~ \\r\\x1b[2K? run ls -la' },
    { osc52, '\\x1b]52;c;cm0gLXJmIH4=\\a' },
    { '\0\1\8\12\11\31\127', '\\x00\\x01\\b\\f\\v\\x1f\\x7f' },
    { 'a\194\155' .. '2J\194\128\194\159\194\160', 'a\\u009b2J\\u0080\\u009f\194\160' },
    { 'x' .. rlo .. '\226\128\170\226\129\166\226\129\169\226\128\139\226\128\143', 'x\\u202e\\u202a\\u2066\\u2069\\u200b\\u200f' },
    { '\226\128\138\226\128\144\226\129\165\226\129\170', '\226\128\138\226\128\144\226\129\165\226\129\170' },
    { 'héllo 世界 🙂 ✓', 'héllo 世界 🙂 ✓' },
    { 'a\255b\195', 'a\\xffb\\xc3' },
    { '\192\175\237\160\128', '\\xc0\\xaf\\xed\\xa0\\x80' },
    { 'C:\\x1b', 'C:\\x1b' },
  }) do
    eq('visible.text ' .. c[1], visible.text(c[1]), c[2])
    eq('visible.line ' .. c[1], visible.line(c[1]), c[3] or c[2])
  end
  local big = string.rep('text \27[2J ' .. rlo .. ' ✓\n', 100000)
  eq('a big input', visible.text(big), string.rep('text \\x1b[2J \\u202e ✓\n', 100000))
end)

section('approvals', function()
  -- The approval prompt: the command as agent-ls quotes it.
  local approval = require('agent-ls.approval')
  eq('exec prompt', approval.prompt({ kind = 'exec', command = { 'sh', '-c', hostile }, cwd = 'file:///repo' }),
    "agent-ls wants to run: sh -c $'rm -rf ~ \\r\\x1b[2K? run ls -la' — in /repo")
  for _, c in ipairs({
    { { 'ls', '-la' }, 'ls -la' },
    { { 'bash', '-lc', "echo 'hi' && ls", 'a\nb', '' }, [[bash -lc "echo 'hi' && ls" $'a\nb' '']] },
    { { 'printf', osc52 }, [[printf $'\x1b]52;c;cm0gLXJmIH4=\a']] },
    { { 'cat', 'a' .. rlo .. 'b', '\194\155z' }, [[cat $'a\u202eb' $'\u009bz']] },
    { { 'echo', '\255', "it's\r" }, [[echo $'\xff' $'it\'s\r']] },
    { { 'if', 'a=b', '~', 'x y' }, [['if' 'a=b' '~' 'x y']] },
  }) do
    eq('exec prompt of ' .. table.concat(c[1], ' '), approval.prompt({ kind = 'exec', command = c[1] }), 'agent-ls wants to run: ' .. c[2])
  end
  local p = approval.prompt({ kind = 'patch', files = { 'file:///r/a' .. rlo .. 'gpj.go' }, reason = 'why ' .. osc52 })
  if hidden(p) then
    fail('patch prompt ' .. p)
  end
  p = approval.prompt({ kind = 'tool', tool = 't\27[2J', server = 's' .. rlo })
  if hidden(p) then
    fail('tool prompt ' .. p)
  end

  -- window/showMessageRequest: the picker's prompt.
  local asked
  vim.ui.select = function(items, opts, on_choice)
    asked = opts.prompt
    on_choice(nil)
  end
  approval.show_message_request(nil, { message = 'run ' .. hostile .. rlo, actions = { { title = 'Allow once' } } })
  eq('showMessageRequest prompt', asked, 'run rm -rf ~ \\r\\x1b[2K? run ls -la\\u202e')
  local notified
  vim.notify = function(msg)
    notified = msg
  end
  approval.show_message_request(nil, { message = 'note ' .. osc52, actions = {} })
  eq('showMessageRequest without actions', notified, 'note \\x1b]52;c;cm0gLXJmIH4=\\a')

  -- A network question: one Always item per offered pattern (at most
  -- three), its characters escaped, and the answer names the one chosen.
  local titles
  vim.ui.select = function(items, opts, on_choice)
    titles = {}
    for _, it in ipairs(items) do
      table.insert(titles, opts.format_item(it))
    end
    on_choice(items[4])
  end
  local answer = approval.ask({ kind = 'network', host = 'registry.npmjs.org', port = 443, command = 'npm i',
    patterns = { 'registry.npmjs.org', '*.npmjs.org', '*.x' .. rlo, '*.fourth' },
    options = { 'allowOnce', 'allowAlways', 'allowPersist', 'rejectOnce' } })
  eq('network items', table.concat(titles, '|'), 'Allow once|Allow for this session|Always allow registry.npmjs.org (user config)'
    .. '|Always allow *.npmjs.org (user config)|Always allow *.x\\u202e (user config)|Deny')
  eq('network answer', answer.decision .. ' ' .. tostring(answer.pattern), 'allowPersist *.npmjs.org')
end)

section('the conversation', function()
  -- The conversation buffer.
  local conversation = require('agent-ls.conversation')
  conversation.setup(require('agent-ls.config').resolve({}))
  local c = conversation.get(1, vim.fn.getcwd())
  for _, ev in ipairs({
    { type = 'turnStarted', sessionId = 's', turnId = 't', prompt = 'fix ' .. rlo .. 'it' },
    { type = 'messageDelta', sessionId = 's', itemId = 'm', delta = 'Let me look.\t' .. '\27[2J\27[H' },
    { type = 'messageDelta', sessionId = 's', itemId = 'm', delta = '\nnext line ' .. osc52 },
    { type = 'message', sessionId = 's', itemId = 'm', text = 'whole' },
    { type = 'reasoning', sessionId = 's', text = 'think ' .. osc52 },
    { type = 'toolCall', sessionId = 's', callId = 'c', tool = 'shell', kind = 'execute', title = hostile },
    { type = 'execOutput', sessionId = 's', callId = 'c', chunk = 'out \27[31mred\r\n' },
    { type = 'toolResult', sessionId = 's', callId = 'c', tool = 'shell', status = 'failed', output = 'bad\27[2J' },
    { type = 'fileChange', sessionId = 's', callId = 'p', status = 'applied', changes = { { uri = 'file:///r/x' .. rlo .. '.go', kind = 'update' } }, diff = '+y\27[2J\n' },
    { type = 'plan', sessionId = 's', explanation = 'e' .. osc52, steps = { { step = 's\194\155', status = 'pending' } } },
    { type = 'retry', sessionId = 's', attempt = 1, message = 'busy\27[2J' },
    { type = 'networkAccess', sessionId = 's', turnId = 't', callId = 'c', host = 'h\27[2J', port = 443, decision = 'allowed', bytes = 1500 },
    { type = 'networkAccess', sessionId = 's', turnId = '', terminalId = '1000', host = 'between.turns', port = 80, decision = 'allowed', bytes = 1 },
    { type = 'turnCompleted', sessionId = 's', turnId = 't', status = 'failed', error = 'boom ' .. osc52 },
  }) do
    c:on_event(ev)
  end
  local lines = vim.api.nvim_buf_get_lines(c.buf, 0, -1, false)
  local text = table.concat(lines, '\n')
  for i, l in ipairs(lines) do
    if hidden(l) then
      fail(string.format('conversation line %d carries a raw control or bidi character: %q', i, l))
    end
  end
  for _, want in ipairs({ 'fix \\u202eit', 'Let me look.\t\\x1b[2J\\x1b[H', 'next line \\x1b]52;c;cm0gLXJmIH4=\\a', '> think \\x1b]52',
    '▸ rm -rf ~ \\r\\x1b[2K? run ls -la', 'out \\x1b[31mred\\r', 'x\\u202e.go', '+y\\x1b[2J', 's\\u009b', 'busy\\x1b[2J', 'Network: h\\x1b[2J:443 allowed, 1.5 kB', 'boom \\x1b]52' }) do
    if not text:find(want, 1, true) then
      fail('the conversation lacks ' .. want)
    end
  end
  if text:find('between.turns', 1, true) then
    fail('a connection between turns was shown in the conversation')
  end
end)
if #failures == 0 then
  io.stderr:write('VISIBLE OK\n')
else
  io.stderr:write('VISIBLE FAIL\n' .. table.concat(failures, '\n') .. '\n')
end
vim.cmd('qa!')
