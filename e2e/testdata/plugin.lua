-- Drives headless Neovim with the agent-ls plugin (editors/neovim) set up
-- as the README says, through what a user does: ask about a selection
-- and watch the answer stream into the conversation, allow a command in
-- the picker, get the patch in the open buffer (undoable, and written to
-- disk), run a code action on a visual selection, stop a turn, undo a
-- turn's changes, start a new conversation, resume the old one, toggle
-- the window, open the log, :checkhealth. vim.ui.select and vim.ui.input
-- are stubbed the way telescope or dressing replace them. Lines starting
-- DRIVER report to the Go test, which answers "DRIVER: streamed" by
-- letting the model finish its first answer.
local ws = assert(os.getenv('AGENT_LS_TEST_WS'))

local function say(msg)
  io.stderr:write('DRIVER: ' .. msg .. '\n')
end

local function fail(msg)
  io.stderr:write('DRIVER FAIL: ' .. msg:gsub('\n', '\n  ') .. '\n')
  vim.cmd('cquit 1')
end

local function wait(what, cond)
  if not vim.wait(120000, cond, 20) then
    fail('timed out waiting for ' .. what)
  end
end

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

local function buffer_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
end

local function has(text, want)
  return text:find(want, 1, true) ~= nil
end

-- The pickers: each vim.ui.select call is recorded (its prompt and the
-- items as shown) and answered with the item shown as `choose`.
local choose = {}
local asked = {}
vim.ui.select = function(items, opts, on_choice)
  local shown = {}
  for _, it in ipairs(items) do
    table.insert(shown, opts.format_item and opts.format_item(it) or tostring(it))
  end
  table.insert(asked, { prompt = opts.prompt, items = shown, kind = opts.kind })
  local want = table.remove(choose, 1)
  local pick, index
  for i, s in ipairs(shown) do
    if want and s:find(want, 1, true) then
      pick, index = items[i], i
      break
    end
  end
  if opts.kind == 'agent-ls.approval' then
    -- As a picker with a window answers: later, from the event loop.
    vim.schedule(function()
      on_choice(pick, index)
    end)
  else
    on_choice(pick, index)
  end
end
local inputs = {}
local input_opts = {} -- the opts of each vim.ui.input, in order
vim.ui.input = function(opts, on_confirm)
  table.insert(input_opts, opts or {})
  on_confirm(table.remove(inputs, 1))
end
local notes = {}
local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(notes, msg)
  return notify(msg, level, opts)
end

local agent = require('agent-ls')
local conversation = require('agent-ls.conversation')

vim.opt.swapfile = false
local path = ws .. '/greet.js'
if os.getenv('AGENT_LS_TEST_FLOW') == 'nowrite' then
  require('agent-ls').setup({ write_agent_edits = false })
end

if os.getenv('AGENT_LS_TEST_FLOW') == 'missing' then
  -- A cmd that is not installed: files open without errors, asking
  -- fails with a message, :checkhealth says what is wrong.
  require('agent-ls').setup({ cmd = { 'no-such-agent-ls' } })
  vim.cmd('edit ' .. path)
  vim.wait(100)
  local ok = pcall(vim.cmd, 'AgentAsk hello')
  if ok then
    fail(':AgentAsk without a server did not fail')
  end
  vim.cmd('checkhealth agent-ls')
  local report = buffer_text(vim.api.nvim_get_current_buf())
  if not has(report, 'ERROR') or not has(report, 'no-such-agent-ls is not found') then
    fail('checkhealth:\n' .. report)
  end
  say('missing binary reported')
  io.stderr:write('DRIVER DONE\n')
  vim.cmd('qa!')
  return
end

if os.getenv('AGENT_LS_TEST_FLOW') == 'healthkey' then
  -- No API key, and the model server on this machine: :checkhealth
  -- does not warn about the key, which such a server does not need.
  require('agent-ls').setup({})
  vim.cmd('checkhealth agent-ls')
  local report = buffer_text(vim.api.nvim_get_current_buf())
  if has(report, 'NOT set') or not has(report, 'is not needed') then
    fail('checkhealth:\n' .. report)
  end
  say('no key warning for a local server')
  io.stderr:write('DRIVER DONE\n')
  vim.cmd('qa!')
  return
end

if os.getenv('AGENT_LS_TEST_FLOW') == 'home' then
  -- `nvim ~/notes.txt` run in ~: the home folder is no workspace, so no
  -- server starts, and the user is told why; a file in a folder of its
  -- own below home, in no project either, gets that folder.
  local home = assert(os.getenv('HOME'))
  local plugin_client = require('agent-ls.client')
  vim.cmd('edit ' .. home .. '/notes.txt')
  wait('the message', function()
    for _, n in ipairs(notes) do
      if has(n, 'your home folder') then
        return true
      end
    end
    return false
  end)
  vim.wait(200)
  local ok, err = pcall(vim.cmd, 'AgentAsk hello')
  local told = false
  for _, n in ipairs(notes) do
    told = told or has(n, 'no workspace here')
  end
  if not told then
    fail(':AgentAsk in the home folder did not say why nothing runs (' .. tostring(ok) .. ' ' .. tostring(err) .. ')')
  end
  if #plugin_client.clients() ~= 0 then
    fail('a server started for a file in the home folder: ' .. plugin_client.clients()[1].config.root_dir)
  end
  vim.cmd('edit ' .. home .. '/notes/todo.txt')
  wait('the server of the notes folder', function()
    local cs = plugin_client.clients()
    return #cs == 1 and cs[1].config.root_dir == home .. '/notes'
  end)
  say('home folder refused')
  io.stderr:write('DRIVER DONE\n')
  vim.cmd('qa!')
  return
end

if os.getenv('AGENT_LS_TEST_FLOW') == 'scratch' then
  -- Asking from a buffer with no file starts the server of the current
  -- directory's project.
  vim.cmd('enew')
  vim.cmd('AgentAsk Hello from nowhere.')
  local c = conversation.of_buffer(vim.fn.bufnr('agent-ls://conversation' .. ws))
  wait('the answer', function()
    c = c or conversation.of_buffer(vim.fn.bufnr('agent-ls://conversation' .. ws))
    return c ~= nil and has(buffer_text(c.buf), 'First answer')
  end)
  say('asked from a scratch buffer')
  io.stderr:write('DRIVER DONE\n')
  vim.cmd('qa!')
  return
end

local function attached(b)
  local found
  wait('agent-ls to attach', function()
    local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = b }) or vim.lsp.buf_get_clients(b)
    for _, c in pairs(clients) do
      if c.name == 'agent-ls' and c.initialized then
        found = c
      end
    end
    return found ~= nil
  end)
  return found
end

if os.getenv('AGENT_LS_TEST_FLOW') == 'mention' then
  -- @ completes the workspace's files in :AgentAsk and in the prompt
  -- input, and a mentioned file goes with the prompt.
  vim.cmd('edit ' .. ws .. '/src/helper.go')
  attached(vim.api.nvim_get_current_buf())
  local mention = require('agent-ls.mention')
  local got
  wait('the completion of @hel', function()
    got = mention.complete('@hel', 'AgentAsk @hel')
    return #got > 0
  end)
  if got[1] ~= '@src/helper.go' then
    fail(':AgentAsk @hel completes to ' .. vim.inspect(got))
  end
  got = vim.fn.AgentLsCompleteMention('look at @src/hel', 'look at @src/hel', 16)
  if got[1] ~= 'look at @src/helper.go' then
    fail('the prompt input completes to ' .. vim.inspect(got))
  end
  say('completed')
  vim.cmd('AgentAsk look at @src/helper.go please')
  local c
  wait('the answer', function()
    c = c or conversation.of_buffer(vim.fn.bufnr('agent-ls://conversation' .. ws))
    return c ~= nil and has(buffer_text(c.buf), 'First answer')
  end)
  say('asked with a mention')
  -- The statusline function, as a user's 'statusline' calls it.
  vim.o.statusline = "%{v:lua.require'agent-ls'.statusline()}"
  local line
  local usage = function()
    line = vim.api.nvim_eval_statusline(vim.o.statusline, { maxwidth = 200, fillchar = ' ' }).str
    return line:match('ctx %d+%%') ~= nil and line:match('limits 42 req, 15[%.0]*k tok left') ~= nil
  end
  if not vim.wait(20000, usage, 20) then
    fail(string.format('the statusline shows %q (statusline() %q, in %s)', line, require('agent-ls').statusline(), vim.api.nvim_buf_get_name(0)))
  end
  say('statusline: ' .. line)
  io.stderr:write('DRIVER DONE\n')
  vim.cmd('qa!')
  return
end

local bar_option = vim.fn.has('nvim-0.8') == 1 and 'winbar' or 'statusline'

if (os.getenv('AGENT_LS_TEST_FLOW') or ''):match('^review') then
  -- Review before apply: a change to lines 2 and 19 of lines.txt opens
  -- as a diff; the keys are typed into it. Neovim 0.7 runs the review
  -- modally inside the request's handler, so there the keys are typed
  -- ahead; later versions get them once the review is open.
  local flow = os.getenv('AGENT_LS_TEST_FLOW')
  require('agent-ls').setup({ review = true })
  local review = require('agent-ls.review')
  local file = ws .. '/lines.txt'
  local original = read_file(file)
  vim.cmd('edit ' .. file)
  local b = vim.api.nvim_get_current_buf()
  local c = attached(b)
  if c.config.capabilities.experimental.agent.review ~= true then
    fail('review = true does not declare experimental.agent.review')
  end
  local conv = conversation.get(c.id)
  -- What the review looks like, taken from inside it (a : command).
  local seen = {}
  _G.REVIEW_SEEN = function()
    local win = vim.api.nvim_get_current_win()
    table.insert(seen, { bar = vim.wo[win][bar_option], text = buffer_text(0), ft = vim.bo.filetype, name = vim.api.nvim_buf_get_name(0), open = #review.reviews() })
  end
  local keys = ({
    -- To the file's window and back, the last hunk rejected, back to
    -- the top, the next hunk (the first) accepted, a comment, applied.
    review = ':lua REVIEW_SEEN()\r\23p\23pGrgg]cac:lua REVIEW_SEEN()\r\r',
    -- Everything rejected with R and applied with :w; with q; by
    -- closing the window.
    ['review-reject'] = ':lua REVIEW_SEEN()\rR:w\r',
    ['review-quit'] = ':lua REVIEW_SEEN()\rq',
    ['review-close'] = ':lua REVIEW_SEEN()\r:q\r',
    ['review-stop'] = ':lua REVIEW_SEEN()\r:AgentStop\r',
  })[flow]
  if flow == 'review' then
    -- What a broken or hostile server might send is rejected without a
    -- review: no changes, a diff that is not a string, a diff whose
    -- hunks do not match the changes.
    local handler = c.config.handlers['agent/requestReview']
    local wins = #vim.api.nvim_list_wins()
    for _, p in ipairs({ 'junk', { changes = 'x' }, { changes = { { uri = 'file:///a', hunks = 1 } }, diff = 5 },
      { changes = { { uri = 'file:///a', hunks = 2 } }, diff = '--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+y\n' },
      { changes = { { uri = 'file:///a', hunks = 1 } }, diff = '--- a/a\n+++ b/a\n@@ -1,3 +1 @@\n-x\n+y\n' } }) do
      local answer = handler(nil, p, { client_id = c.id })
      if type(answer) ~= 'table' or answer.decision ~= 'reject' or answer.hunks or #vim.api.nvim_list_wins() ~= wins then
        fail('a malformed review request was answered ' .. vim.inspect(answer) .. ': ' .. vim.inspect(p))
      end
    end
    -- A hunk that deletes a line "-- x" and adds "++ y" holds lines that
    -- look like a file's ---/+++ header; it is one hunk all the same.
    -- Called here outside a coroutine, the review is modal, as on 0.7.
    vim.api.nvim_feedkeys('a\r', 'n', false)
    local answer = handler(nil, { sessionId = 's', turnId = 't', callId = 'x', changes = { { uri = 'file:///x.lua', kind = 'update', hunks = 2 } },
      diff = '--- a/x.lua\n+++ b/x.lua\n@@ -1,2 +1,2 @@\n--- x\n+++ y\n keep\n@@ -10 +10 @@\n-old\n+new\n' }, { client_id = c.id })
    if not vim.deep_equal(answer, { decision = 'reject', hunks = { { uri = 'file:///x.lua', index = 0, accept = true } } }) or #vim.api.nvim_list_wins() ~= wins then
      fail('the review of a hunk with ---/+++ lines answered ' .. vim.inspect(answer))
    end
    -- A move without content changes is a line of its own, decided like
    -- a hunk; it goes ahead only when everything is accepted.
    local move = { sessionId = 's', turnId = 't', callId = 'm', diff = '--- a/x.lua\n+++ b/x.lua\n@@ -1,2 +1,2 @@\n-a\n+b\n keep\n',
      changes = { { uri = 'file:///a.lua', newUri = 'file:///b.lua', kind = 'move', hunks = 0 }, { uri = 'file:///x.lua', kind = 'update', hunks = 1 } } }
    for keys, want in pairs({ ['ra\r'] = { decision = 'reject', hunks = { { uri = 'file:///x.lua', index = 0, accept = true } } }, ['A\r'] = { decision = 'accept' } }) do
      vim.api.nvim_feedkeys(keys, 'n', false)
      answer = handler(nil, move, { client_id = c.id })
      if not vim.deep_equal(answer, want) then
        fail('the review of a move and a hunk with ' .. vim.inspect(keys) .. ' answered ' .. vim.inspect(answer))
      end
    end
    say('malformed reviews rejected')
  end
  inputs = { 'keep line 19' }
  local modal = vim.fn.has('nvim-0.9') == 0
  if modal then
    vim.api.nvim_feedkeys(keys, 'n', false)
  end
  vim.cmd('AgentAsk Change lines 2 and 19.')
  if not modal then
    wait('the review to open', function()
      return #review.reviews() == 1
    end)
    vim.api.nvim_feedkeys(keys, 'mx', false)
  end
  wait('the turn to end', function()
    return has(buffer_text(conv.buf), '_Turn ')
  end)
  local first = seen[1]
  if not first or first.ft ~= 'diff' or first.open ~= 1 or not has(first.name, 'agent-ls://review/')
    or not has(first.text, '@@ -1,5 +1,5 @@') or not has(first.text, '@@ -16,5 +16,5 @@') or not has(first.text, '+LINE 19') then
    fail('the review did not open as a diff: ' .. vim.inspect(seen))
  end
  if not has(first.bar, '0 accepted, 0 rejected, 2 undecided') or not has(first.bar, 'a accept · r reject · A/R all · c comment · <CR> apply · q reject all') then
    fail('the ' .. bar_option .. ' does not show the keys: ' .. first.bar)
  end
  if #review.reviews() ~= 0 then
    fail('the review stayed open')
  end
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if has(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)), 'agent-ls://review/') then
      fail('the review window stayed open')
    end
  end
  local text = buffer_text(b)
  if flow == 'review' then
    if not seen[2] or not has(seen[2].bar, '1 accepted, 1 rejected, 0 undecided · commented') or not has(seen[2].name, 'agent-ls://review/') then
      fail('the decisions are not shown: ' .. vim.inspect(seen[2]))
    end
    wait('the answer', function()
      return has(buffer_text(conv.buf), '_Turn completed._')
    end)
    if not has(text, 'LINE 2\n') or has(text, 'LINE 19') or vim.bo[b].modified or read_file(file) ~= text then
      fail('the buffer does not hold the accepted hunk alone, saved:\n' .. text)
    end
    local shown = buffer_text(conv.buf)
    if not has(shown, 'lines.txt (+2 -2) proposed') or not has(shown, 'lines.txt (+1 -1) applied') then
      fail('the conversation does not show the proposal and what was applied:\n' .. shown)
    end
    say('one hunk accepted')
  else
    if text ~= original or read_file(file) ~= original then
      fail('the rejected change was applied:\n' .. text)
    end
    if flow == 'review-stop' then
      wait('the interrupted turn', function()
        return has(buffer_text(conv.buf), '_Turn interrupted._')
      end)
      say('review closed by :AgentStop')
    else
      wait('the answer', function()
        return has(buffer_text(conv.buf), '_Turn completed._')
      end)
      if not has(buffer_text(conv.buf), 'lines.txt (+2 -2) rejected') then
        fail('the conversation does not show the rejection:\n' .. buffer_text(conv.buf))
      end
      say('everything rejected')
    end
  end
  io.stderr:write('DRIVER DONE\n')
  vim.cmd('qa!')
  return
end

local before = read_file(path)
vim.cmd('edit ' .. path)
local buf = vim.api.nvim_get_current_buf()
local client = attached(buf)
if client.config.root_dir ~= ws then
  fail('root ' .. tostring(client.config.root_dir) .. ', want ' .. ws)
end
say('attached')

local conv = conversation.get(client.id)

local flow = os.getenv('AGENT_LS_TEST_FLOW')
if flow == 'unsaved' or flow == 'nowrite' then
  if client.config.capabilities.experimental.agent.review then
    fail('experimental.agent.review is declared without review = true')
  end
  -- unsaved: the user has typed in the buffer without saving: the
  -- agent's patch lands in the buffer with the user's line, and the file
  -- is left alone. nowrite: write_agent_edits is off, so even a buffer
  -- without unsaved changes keeps the patch unsaved.
  if flow == 'unsaved' then
    vim.api.nvim_buf_set_lines(buf, -1, -1, false, { '// typed, not saved' })
  end
  vim.cmd('AgentAsk Fix the greeting.')
  wait('the answer', function()
    return has(buffer_text(conv.buf), '_Turn completed._')
  end)
  local text = buffer_text(buf)
  if not has(text, 'Grüß dich') or (flow == 'unsaved' and not has(text, '// typed, not saved')) or not vim.bo[buf].modified then
    fail('the buffer lacks the patch or the user\'s line, or is saved:\n' .. text)
  end
  if read_file(path) ~= before then
    fail('the file was written behind the user\'s unsaved changes')
  end
  say('unsaved buffer left alone')
  io.stderr:write('DRIVER DONE\n')
  vim.cmd('qa!')
  return
end
if flow == 'rewind' then
  -- A turn patches the open buffer (written to disk) and runs a command
  -- that changes other.txt; :AgentRewind takes both back, the buffer in
  -- one undo step.
  choose = { 'Allow once' }
  local other = ws .. '/other.txt'
  local other_before = read_file(other)
  vim.cmd('AgentAsk Fix the greeting and the other file.')
  wait('the answer', function()
    return has(buffer_text(conv.buf), '_Turn completed._')
  end)
  local patched = buffer_text(buf)
  if not has(patched, 'Grüß dich') or read_file(other) == other_before then
    fail('the turn did not patch the buffer and change other.txt:\n' .. patched .. read_file(other))
  end
  wait('the patch on disk', function()
    return read_file(path) == patched
  end)
  -- A user's keystrokes close the undo block of the agent's patch before
  -- they type :AgentRewind; headless, nothing does, so close it here.
  vim.api.nvim_buf_call(buf, function()
    vim.cmd('let &undolevels = &undolevels')
  end)
  vim.cmd('AgentRewind')
  wait('the rewind', function()
    return has(buffer_text(conv.buf), '_Rewound 1 turn(s)')
  end)
  wait('the buffer and other.txt back', function()
    return buffer_text(buf) == before and read_file(other) == other_before
  end)
  say('rewound')
  vim.api.nvim_buf_call(buf, function()
    vim.cmd('silent undo')
  end)
  if buffer_text(buf) ~= patched then
    fail('one undo does not bring the agent\'s patch back:\n' .. buffer_text(buf))
  end
  say('one undo step')
  io.stderr:write('DRIVER DONE\n')
  vim.cmd('qa!')
  return
end
if flow == 'edit' then
  -- A turn patches the open buffer; :AgentEdit offers its prompt, and
  -- the edited one is sent in its place: the patch goes back first.
  vim.cmd('AgentAsk Fix the greeting.')
  wait('the answer', function()
    return has(buffer_text(conv.buf), '_Turn completed._')
  end)
  local patched = buffer_text(buf)
  if not has(patched, 'Grüß dich') then
    fail('the turn did not patch the buffer:\n' .. patched)
  end
  wait('the patch on disk', function()
    return read_file(path) == patched
  end)
  inputs = { '' }
  vim.cmd('AgentEdit')
  if #input_opts ~= 1 or input_opts[1].default ~= 'Fix the greeting.' then
    fail('AgentEdit offered ' .. vim.inspect(input_opts))
  end
  if buffer_text(buf) ~= patched then
    fail('an empty edit changed something')
  end
  say('edit offered the prompt, an empty one changed nothing')
  inputs = { 'Leave the greeting as it is.' }
  vim.cmd('AgentEdit 1')
  if input_opts[2].default ~= 'Fix the greeting.' then
    fail('AgentEdit 1 offered ' .. vim.inspect(input_opts[2]))
  end
  wait('the rewind', function()
    return has(buffer_text(conv.buf), '_Rewound 1 turn(s)')
  end)
  wait('the edited prompt answered', function()
    local text = buffer_text(conv.buf)
    return has(text, 'Leave the greeting as it is.') and select(2, text:gsub('_Turn completed._', '')) == 2
  end)
  wait('the buffer back', function()
    return buffer_text(buf) == before
  end)
  say('edited and sent')
  io.stderr:write('DRIVER DONE\n')
  vim.cmd('qa!')
  return
end
local function conv_text()
  return buffer_text(conv.buf)
end
local function conv_has(want)
  return function()
    return has(conv_text(), want)
  end
end

-- 1. Ask about lines 2-3; the answer streams in while the model holds
-- the rest of it.
choose = { 'Allow once' }
local ns = vim.api.nvim_create_namespace('test-lint')
vim.diagnostic.set(ns, buf, { { lnum = 2, col = 2, message = 'greeting is not German', severity = vim.diagnostic.severity.WARN, source = 'lint' } })
vim.cmd('2,3AgentAsk Fix this code.')
wait('the streamed text', conv_has('I will fix the greeting.'))
if not conv.running or has(conv_text(), '_Turn') then
  fail('the turn is not running while it streams:\n' .. conv_text())
end
if #conv:windows() ~= 1 then
  fail('the conversation window is not shown')
end
if vim.api.nvim_get_current_buf() ~= buf then
  fail('asking moved the cursor out of the file')
end
say('streamed')
wait('the first answer', conv_has('_Turn completed._'))
local text = conv_text()
for _, want in ipairs({ '## You', 'Fix this code.', '## Agent', '▸ ', '```diff', '+  return "Grüß dich, " + name + " 👋";', 'First answer: the greeting is fixed.', '✓ completed', 'allowOnce' }) do
  if not has(text, want) then
    fail('the conversation lacks ' .. want .. ':\n' .. text)
  end
end
if vim.bo[conv.buf].modifiable or vim.bo[conv.buf].filetype ~= 'markdown' then
  fail('the conversation buffer is modifiable or not markdown')
end
local bar = vim.wo[conv:windows()[1]][bar_option]
if not has(bar, 'tokens in') then
  fail('the ' .. bar_option .. ' shows no token use: ' .. bar)
end
local approval = asked[1]
if not approval or approval.kind ~= 'agent-ls.approval' then
  fail('no approval was asked: ' .. vim.inspect(asked))
end
if not has(approval.prompt, "agent-ls wants to run: grep -c 'Grüß dich' greet.js") or not has(approval.prompt, 'in ' .. ws)
  or not has(approval.prompt, 'check the file on disk') or approval.items[1] ~= 'Allow once' then
  fail('the approval does not say what, where and why, with Allow once first: ' .. vim.inspect(approval))
end
local progressed = false
for _, n in ipairs(notes) do
  progressed = progressed or has(n, 'Agent')
end
if not progressed then
  fail('no $/progress reached vim.notify: ' .. vim.inspect(notes))
end

-- The patch is in the buffer, written to disk, and undoable.
local patched = buffer_text(buf)
if not has(patched, 'Grüß dich, " + name + " 👋') then
  fail('the buffer was not patched: ' .. patched)
end
if vim.bo[buf].modified or read_file(path) ~= patched then
  fail('the patched buffer was not written')
end
vim.cmd('undo')
if buffer_text(buf) ~= before then
  fail(':undo did not bring back the text: ' .. buffer_text(buf))
end
vim.cmd('redo')
if buffer_text(buf) ~= patched then
  fail(':redo did not bring back the patch')
end
-- The window followed the text to its end.
local conv_win = conv:windows()[1]
if vim.api.nvim_win_get_cursor(conv_win)[1] ~= vim.api.nvim_buf_line_count(conv.buf) then
  fail('the conversation window did not follow the answer')
end
say('first turn')

-- 2. A code action on a visual selection; its turn runs a command with
-- a long output, which is folded. The user reads the top of the
-- conversation meanwhile: the cursor stays there.
vim.api.nvim_win_set_cursor(conv_win, { 2, 0 })
choose = { 'Agent: Explain this' }
vim.cmd('normal! 2GVjj' .. vim.api.nvim_replace_termcodes('<Esc>', true, false, true))
agent.code_action(true) -- what the visual-mode mapping runs
wait('the second answer', conv_has('Second answer: greet builds a greeting.'))
wait('the second turn to end', function()
  return not conv.running
end)
for _, want in ipairs({ '**Plan**', 'Two steps.', '- [x] Read greet', '- [-] Explain it', '- [ ] Sum up' }) do
  if not has(conv_text(), want) then
    fail('the conversation lacks the plan line ' .. want .. ':\n' .. conv_text())
  end
end
if vim.api.nvim_win_get_cursor(conv_win)[1] ~= 2 then
  fail('the conversation moved the cursor the user had put on line 2')
end
local lines = vim.api.nvim_buf_get_lines(conv.buf, 0, -1, false)
local line40
for i, l in ipairs(lines) do
  if l == '40' then
    line40 = i
  end
end
if not line40 or vim.api.nvim_win_call(conv_win, function()
  return vim.fn.foldclosed(line40)
end) == -1 then
  fail('the long output is not folded:\n' .. conv_text())
end
say('code action')

-- 3. A turn asked through vim.ui.input, stopped while the model streams.
inputs = { 'Refactor this.' }
vim.cmd('AgentAsk')
wait('the third turn to stream', conv_has('Refactoring'))
vim.cmd('AgentStop')
wait('the interrupted turn', conv_has('_Turn interrupted._'))
say('stopped')

-- 4. Undo the first turn's changes: buffer and file are as before.
vim.cmd('AgentUndo')
wait('the undo', function()
  return buffer_text(buf) == before
end)
wait('the undone file to be written', function()
  return read_file(path) == before and not vim.bo[buf].modified
end)
wait('the undo to be noted', conv_has('_Undid turn '))
say('undone')

-- 5. A new conversation, then the old one resumed from the list.
vim.cmd('AgentNew')
wait('the new conversation', function()
  return vim.api.nvim_buf_line_count(conv.buf) == 1
end)
local old = conv.session_id
choose = { 'Fix this code.' }
vim.cmd('AgentSessions')
wait('the resumed conversation', conv_has('First answer: the greeting is fixed.'))
text = conv_text()
for _, want in ipairs({ 'Fix this code.', 'Second answer', 'Refactor this.', '_Turn interrupted._', '```diff' }) do
  if not has(text, want) then
    fail('the resumed conversation lacks ' .. want .. ':\n' .. text)
  end
end
say('resumed ' .. tostring(conv.session_id) .. ' after ' .. tostring(old))

-- 6. The window toggles; the log opens.
vim.cmd('AgentToggle')
if #conv:windows() ~= 0 then
  fail(':AgentToggle did not hide the conversation')
end
vim.cmd('AgentToggle')
if #conv:windows() ~= 1 then
  fail(':AgentToggle did not show the conversation')
end
-- The server's "Show conversation" code action shows the window.
vim.cmd('AgentToggle')
choose = { 'Agent: Show conversation' }
vim.api.nvim_set_current_win(vim.fn.win_findbuf(buf)[1])
agent.code_action()
wait('"Agent: Show conversation" to show the conversation', function()
  return #conv:windows() == 1
end)
vim.cmd('AgentToggle')
vim.cmd('AgentToggle')

-- As a float.
agent.options.conversation.layout = 'float'
vim.cmd('AgentToggle')
vim.cmd('AgentToggle')
if #conv:windows() ~= 1 or vim.api.nvim_win_get_config(conv:windows()[1]).relative == '' then
  fail('the conversation is not shown as a float')
end
vim.cmd('AgentToggle')
agent.options.conversation.layout = 'vsplit'
vim.cmd('AgentLog')
if not has(vim.api.nvim_buf_get_name(0), 'lsp.log') then
  fail(':AgentLog opened ' .. vim.api.nvim_buf_get_name(0))
end
vim.cmd('close')
say('toggled')

-- 7. The showMessageRequest handler answers, even when dismissed.
local approve = require('agent-ls.approval')
choose = { 'Yes' }
local picked = approve.show_message_request(nil, { type = 2, message = 'go?', actions = { { title = 'No' }, { title = 'Yes' } } })
if type(picked) ~= 'table' or picked.title ~= 'Yes' then
  fail('showMessageRequest answered ' .. vim.inspect(picked))
end
choose = {}
if approve.show_message_request(nil, { type = 2, message = 'go?', actions = { { title = 'No' } } }) ~= vim.NIL then
  fail('a dismissed showMessageRequest is not answered with null')
end
say('message request')

-- A patch approval shows its diff on request, then asks again.
choose = { 'Show the diff', 'Allow once' }
asked = {}
local wins = #vim.api.nvim_list_wins()
local seen_diff
local select = vim.ui.select
vim.ui.select = function(items, opts, on_choice)
  if #asked == 1 then
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      local b = vim.api.nvim_win_get_buf(w)
      if vim.bo[b].filetype == 'diff' then
        seen_diff = buffer_text(b)
      end
    end
  end
  return select(items, opts, on_choice)
end
answer = client.config.handlers['agent/requestApproval'](nil, { kind = 'patch', files = { 'file://' .. path },
  diff = '--- a/greet.js\n+++ b/greet.js\n@@ -1 +1 @@\n-old\n+new\n', reason = 'outside the policy', options = { 'allowOnce', 'rejectOnce' } }, { client_id = client.id })
vim.ui.select = select
if answer.decision ~= 'allowOnce' or #asked ~= 2 or not seen_diff or not has(seen_diff, '+new') then
  fail('the patch approval did not show the diff and ask again: ' .. vim.inspect({ answer, asked, seen_diff }))
end
if not has(asked[1].prompt, 'agent-ls wants to change greet.js') or asked[1].items[#asked[1].items] ~= 'Show the diff' then
  fail('the patch approval prompt: ' .. vim.inspect(asked[1]))
end
if #vim.api.nvim_list_wins() ~= wins then
  fail('the diff window stayed open')
end
say('patch approval')

-- 8. What a hostile or broken server might send: events with fields of
-- the wrong type are left out, a malformed approval is rejected, control
-- characters in a command show escaped.
local handlers = client.config.handlers
handlers['agent/event'](nil, { type = 'messageDelta', itemId = {}, delta = { 1 } }, { client_id = client.id })
handlers['agent/event'](nil, { type = 'plan', steps = 'none' }, { client_id = client.id })
handlers['agent/event'](nil, 'junk', { client_id = client.id })
choose = { 'Allow once' }
local answer = handlers['agent/requestApproval'](nil, { kind = 'exec', command = { 'rm' }, options = 'allowOnce' }, { client_id = client.id })
if answer.decision ~= 'rejectOnce' and answer.decision ~= 'allowOnce' then
  fail('a malformed approval answered ' .. vim.inspect(answer))
end
choose = {}
asked = {}
answer = handlers['agent/requestApproval'](nil, { kind = 'exec', command = { 'printf', 'a\n\27[2Jb' }, cwd = 'file:///tmp', options = { 'allowOnce', 'rejectOnce', 'bogus' } }, { client_id = client.id })
if answer.decision ~= 'rejectOnce' then
  fail('a dismissed approval answered ' .. vim.inspect(answer))
end
if has(asked[1].prompt, '\27') or has(asked[1].prompt, '\n') or not has(asked[1].prompt, '\\x1b[2J') or #asked[1].items ~= 3 then
  fail('the approval shows control characters or unknown options: ' .. vim.inspect(asked[1]))
end
say('hostile input')

-- One server per project root: a file of another project gets its own.
local other = vim.fn.tempname()
vim.fn.mkdir(other .. '/.git', 'p')
vim.fn.writefile({ 'print("other")' }, other .. '/main.lua')
vim.cmd('edit ' .. other .. '/main.lua')
local other_buf = vim.api.nvim_get_current_buf()
local second
wait('a second agent-ls for the other project', function()
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = other_buf }) or vim.lsp.buf_get_clients(other_buf)
  for _, c in pairs(clients) do
    if c.name == 'agent-ls' and c.initialized then
      second = c
    end
  end
  return second ~= nil
end)
if second.id == client.id or second.config.root_dir ~= other then
  fail('the other project shares a server or has root ' .. tostring(second.config.root_dir))
end
vim.cmd('edit ' .. path)
local again = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = vim.api.nvim_get_current_buf() }) or vim.lsp.buf_get_clients(0)
local n = 0
for _, c in pairs(again) do
  if c.name == 'agent-ls' then
    n = n + 1
    if c.id ~= client.id then
      fail('greet.js is attached to another server')
    end
  end
end
if n ~= 1 then
  fail('greet.js is attached to ' .. n .. ' agent-ls servers')
end
say('one server per root')

-- 9. :checkhealth agent-ls.
vim.cmd('checkhealth agent-ls')
local report = buffer_text(vim.api.nvim_get_current_buf())
if has(report, 'ERROR') or not has(report, 'agent-ls binary') or not has(report, 'Landlock') then
  fail('checkhealth:\n' .. report)
end
io.stderr:write('DRIVER HEALTH\n' .. report .. '\nDRIVER HEALTH END\n')

io.stderr:write('DRIVER DONE\n')
vim.cmd('qa!')
