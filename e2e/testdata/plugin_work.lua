-- Drives headless Neovim with the agent-ls plugin set up as the README
-- says, through what a user does while the agent works: the terminals
-- it started (flow "terminal"), the queue and steering (flows "queue"
-- and "resume"), the model's questions ("question", "question-withdraw")
-- and plan mode ("plan").
-- vim.ui.select and vim.ui.input are stubbed the way telescope or
-- dressing replace them. The flow runs in a coroutine that gives the
-- main loop a turn while it waits, so that typed keys (terminal mode)
-- are taken as a user's are. Lines starting DRIVER report to the Go
-- test.
local ws = assert(os.getenv('AGENT_LS_TEST_WS'))
local flow = os.getenv('AGENT_LS_TEST_FLOW')

local function say(msg)
  io.stderr:write('DRIVER: ' .. msg .. '\n')
end

local function fail(msg)
  io.stderr:write('DRIVER FAIL: ' .. msg:gsub('\n', '\n  ') .. '\n')
  vim.cmd('cquit 1')
end

-- sleep gives the main loop ms milliseconds (inside the flow's
-- coroutine).
local function sleep(ms)
  local co = coroutine.running()
  vim.defer_fn(function()
    coroutine.resume(co)
  end, ms)
  coroutine.yield()
end

local function wait(what, cond)
  local deadline = vim.loop.now() + 120000
  while not cond() do
    if vim.loop.now() > deadline then
      fail('timed out waiting for ' .. what)
      return
    end
    sleep(20)
  end
end

local function buffer_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
end

local function has(text, want)
  return text:find(want, 1, true) ~= nil
end

-- The pickers: each call is recorded (prompt, items as shown) and
-- answered with the item shown as `choose`.
local choose, asked, inputs, notes = {}, {}, {}, {}
vim.ui.select = function(items, opts, on_choice)
  local shown = {}
  for _, it in ipairs(items) do
    table.insert(shown, opts.format_item and opts.format_item(it) or tostring(it))
  end
  table.insert(asked, { prompt = opts.prompt, items = shown, kind = opts.kind })
  local want = table.remove(choose, 1)
  if want == false then
    return -- a picker the user leaves open
  end
  for i, s in ipairs(shown) do
    if want and s:find(want, 1, true) then
      on_choice(items[i], i)
      return
    end
  end
  on_choice(nil, nil)
end
vim.ui.input = function(opts, on_confirm)
  table.insert(asked, { prompt = opts.prompt, default = opts.default, kind = 'input' })
  on_confirm(table.remove(inputs, 1))
end
local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(notes, msg)
  return notify(msg, level, opts)
end
local function noted(want)
  for _, n in ipairs(notes) do
    if has(n, want) then
      return true
    end
  end
  return false
end

local conversation = require('agent-ls.conversation')
local bar_option = vim.fn.has('nvim-0.8') == 1 and 'winbar' or 'statusline'

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

-- run runs an Ex command that asks through a picker once the server
-- has answered, and waits for the picker.
local function run(cmd)
  local n = #asked
  vim.cmd(cmd)
  wait(cmd .. ' to ask', function()
    return #asked > n
  end)
end

local flows = {}

-- terminal: three command sessions outlive their turn; one opens as a
-- terminal buffer, is typed into and ends; the second is killed, the
-- third stopped with all the others.
function flows.terminal(conv, buf)
  local function conv_has(want)
    return function()
      return has(buffer_text(conv.buf), want)
    end
  end
  vim.cmd('AgentAsk Start the commands.')
  wait('the turn to end', conv_has('_Turn completed._'))
  choose = { 'read n' }
  run('AgentTerminals')
  local pick = asked[#asked]
  if not pick or pick.kind ~= 'agent-ls.terminal' or #pick.items ~= 3 or not has(pick.items[1], 'running')
    or not has(table.concat(pick.items, '\n'), 'exec sleep 600') then
    fail(':AgentTerminals did not list the three running terminals: ' .. vim.inspect(pick))
  end
  local term = vim.api.nvim_get_current_buf()
  if vim.bo[term].buftype ~= 'terminal' or not has(vim.api.nvim_buf_get_name(term), 'agent-ls://terminal/') or not has(vim.api.nvim_buf_get_name(term), 'read n') then
    fail('the terminal did not open as a terminal buffer named after its command: ' .. vim.api.nvim_buf_get_name(term))
  end
  wait('the prompt in the terminal', function()
    -- (Neovim 0.7 leaves out a line's trailing blanks.)
    return has(buffer_text(term), 'Name?')
  end)
  say('terminal shows the output')
  -- Typed in terminal mode, as a user types.
  vim.api.nvim_feedkeys('iBob\r', 't', false)
  wait('the answer in the terminal', function()
    return has(buffer_text(term), 'hello Bob')
  end)
  wait('the end of the command', function()
    return has(buffer_text(term), 'exited with code 0') and has(vim.api.nvim_buf_get_name(term), '[exited 0]')
  end)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<C-\\><C-n>', true, false, true), 'n', false)
  sleep(50)
  say('typed into the terminal')
  -- The other one, on pipes: its output has its lines, and it is killed.
  choose = { 'exec sleep 600' }
  run('AgentTerminals')
  local sleeper = vim.api.nvim_get_current_buf()
  wait('the output of the second terminal', function()
    return has(buffer_text(sleeper), 'started')
  end)
  vim.cmd('AgentKillTerminal')
  wait('the killed terminal to end', function()
    return has(vim.api.nvim_buf_get_name(sleeper), '[exited')
  end)
  say('killed')
  vim.cmd('AgentStopTerminals')
  wait('the last terminal to be stopped', function()
    choose = {}
    run('AgentTerminals')
    return has(asked[#asked].items[3] or '', 'exited')
  end)
  local items = asked[#asked].items
  if not has(items[1], 'exited 0') or not has(items[2], 'exited') then
    fail('the ended terminals are not listed as exited: ' .. vim.inspect(items))
  end
end

-- queue: prompts queued while a turn runs, edited, removed, sent now;
-- a message steered into the turn.
function flows.queue(conv, buf)
  local function conv_has(want)
    return function()
      return has(buffer_text(conv.buf), want)
    end
  end
  vim.cmd('AgentAsk Start working.')
  wait('the turn to stream', conv_has('Working'))
  vim.cmd('AgentAsk Second prompt.')
  wait('the first queued message', function()
    return noted('queued (1 waiting)')
  end)
  vim.cmd('AgentAsk Third prompt.')
  vim.cmd('AgentAsk Fourth prompt.')
  -- Each :AgentAsk is told it queued; the count it gives is the queue the
  -- plugin knew of when the answer came, which the events may not have
  -- caught up with yet, so only the queue itself is checked.
  wait('three queued', function()
    local told = 0
    for _, n in ipairs(notes) do
      if has(n, 'queued (') then
        told = told + 1
      end
    end
    return #conv.queue.items == 3 and told >= 3
  end)
  local bar = vim.wo[conv:windows()[1]][bar_option]
  if not has(bar, '3 queued') or not has(bar, 'running') then
    fail('the ' .. bar_option .. ' does not show the queue: ' .. bar)
  end
  -- Edit the third, remove the second, send the fourth now.
  choose = { 'Third prompt.', 'Edit' }
  inputs = { 'Third prompt, edited.' }
  vim.cmd('AgentQueue')
  if asked[#asked].default ~= 'Third prompt.' then
    fail('editing did not start from the queued text: ' .. vim.inspect(asked[#asked]))
  end
  wait('the edited prompt', function()
    return conv.queue.items[2] and conv.queue.items[2].prompt == 'Third prompt, edited.'
  end)
  choose = { 'Second prompt.', 'Remove' }
  vim.cmd('AgentQueue')
  wait('the removed prompt', function()
    return #conv.queue.items == 2
  end)
  choose = { 'Fourth prompt.', 'Send now' }
  vim.cmd('AgentQueue')
  wait('the prompt sent now', function()
    return #conv.queue.items == 1 and conv.queue.items[1].prompt == 'Third prompt, edited.'
  end)
  -- The driver lets the model go on once told "steered": by then the
  -- server must have taken the steer (answered it), or it could reach
  -- the turn after its last request and need one more.
  local lsp_client = require('agent-ls.client')
  local request, taken = lsp_client.request, false
  lsp_client.request = function(c, method, params, handler)
    if method ~= 'agent/steer' then
      return request(c, method, params, handler)
    end
    return request(c, method, params, function(err, result)
      taken = err == nil
      handler(err, result)
    end)
  end
  vim.cmd('AgentSteer Also check the tests.')
  wait('the steer to be taken', function()
    return taken
  end)
  lsp_client.request = request
  say('steered')
  wait('the steered messages', function()
    return has(buffer_text(conv.buf), 'Also check the tests.') and has(buffer_text(conv.buf), 'Fourth prompt.')
  end)
  wait('the edited prompt to run and end', conv_has('Edited one answered.'))
  wait('its turn to end', function()
    return not conv.running and #conv.queue.items == 0
  end)
  local text = buffer_text(conv.buf)
  if not has(text, '## You (while it worked)\n\nAlso check the tests.') or not has(text, '## You\n\nThird prompt, edited.') or has(text, 'Second prompt.') then
    fail('the conversation does not show the steered messages and the edited turn alone:\n' .. text)
  end
  if vim.api.nvim_get_current_buf() ~= buf or not noted('agent-ls: turn done') then
    fail('the end of the turn was not told: ' .. vim.inspect(notes))
  end
end

-- question: the model's two questions, one answered with an option,
-- one with Other and a text.
function flows.question(conv)
  choose = { 'SQLite', 'Other' }
  inputs = { 'my-service' }
  vim.cmd('AgentAsk Set up the service.')
  wait('the answer', function()
    return has(buffer_text(conv.buf), 'Noted.')
  end)
  local q1, q2 = asked[1], asked[2]
  if not q1 or q1.kind ~= 'agent-ls.question' or q1.prompt ~= 'Database: Which database should the service use?'
    or q1.items[1] ~= 'Postgres — Matches production.' or q1.items[3] ~= 'Other (type an answer)' then
    fail('the first question: ' .. vim.inspect(q1))
  end
  if not q2 or q2.kind ~= 'agent-ls.question' or not has(q2.prompt, 'Name: What should it be called?') or not asked[3] or asked[3].kind ~= 'input' then
    fail('the second question and its Other: ' .. vim.inspect(asked))
  end
  if not noted('agent-ls: waiting for you (question)') then
    fail('the question was not told: ' .. vim.inspect(notes))
  end
end

-- question-withdraw: a question left open is withdrawn when the user
-- stops the turn.
flows['question-withdraw'] = function(conv)
  choose = { false }
  vim.cmd('AgentAsk Set up the service.')
  wait('the question', function()
    return asked[1] ~= nil and asked[1].kind == 'agent-ls.question'
  end)
  vim.cmd('AgentStop')
  wait('the interrupted turn', function()
    return has(buffer_text(conv.buf), '_Turn interrupted._')
  end)
  wait('the question to be withdrawn', function()
    return noted('the question was withdrawn')
  end)
  if #asked ~= 1 then
    fail('the second question was asked after the withdrawal: ' .. vim.inspect(asked))
  end
end

-- plan: :AgentPlan asks in plan mode, where the model's patch is
-- refused; :AgentApprovePlan carries the plan out, and the patch lands.
function flows.plan(conv, buf)
  local function conv_has(want)
    return function()
      return has(buffer_text(conv.buf), want)
    end
  end
  local before = buffer_text(buf)
  vim.cmd('AgentPlan Plan the greeting fix.')
  wait('the plan', conv_has('The plan: greet in German.'))
  wait('the planning turn to end', conv_has('_Turn completed._'))
  if conv.mode ~= 'plan' or not has(vim.wo[conv:windows()[1]][bar_option], 'plan mode') then
    fail('plan mode is not shown: ' .. tostring(conv.mode) .. ' ' .. vim.wo[conv:windows()[1]][bar_option])
  end
  if buffer_text(buf) ~= before then
    fail('the file changed in plan mode:\n' .. buffer_text(buf))
  end
  say('planned')
  vim.cmd('AgentApprovePlan')
  wait('the plan carried out', conv_has('Carried out.'))
  wait('its turn to end', function()
    return not conv.running
  end)
  if conv.mode ~= 'default' or has(vim.wo[conv:windows()[1]][bar_option], 'plan mode') then
    fail('plan mode is still shown: ' .. tostring(conv.mode) .. ' ' .. vim.wo[conv:windows()[1]][bar_option])
  end
  if not has(buffer_text(buf), 'Grüß dich') then
    fail('the approved plan did not change the file:\n' .. buffer_text(buf))
  end
  if not has(buffer_text(conv.buf), '_Default mode._') then
    fail('the return to the default mode is not shown:\n' .. buffer_text(conv.buf))
  end
end

-- resume: a prompt queued behind a turn the user stops waits, paused,
-- until :AgentResume.
function flows.resume(conv)
  local function conv_has(want)
    return function()
      return has(buffer_text(conv.buf), want)
    end
  end
  vim.cmd('AgentAsk Start working.')
  wait('the turn to stream', conv_has('Working'))
  vim.cmd('AgentAsk Later prompt.')
  wait('the queued prompt', function()
    return #conv.queue.items == 1
  end)
  vim.cmd('AgentStop')
  wait('the paused queue', function()
    return conv.queue.paused and has(buffer_text(conv.buf), ':AgentResume sends them on')
  end)
  local bar = vim.wo[conv:windows()[1]][bar_option]
  if not has(bar, '1 queued (paused)') then
    fail('the ' .. bar_option .. ' does not show the paused queue: ' .. bar)
  end
  say('paused')
  vim.cmd('AgentResume')
  wait('the queued prompt to run', conv_has('Later answered.'))
  wait('its turn to end', function()
    return not conv.running and #conv.queue.items == 0
  end)
  if not has(buffer_text(conv.buf), '## You\n\nLater prompt.') then
    fail('the resumed prompt is not shown:\n' .. buffer_text(conv.buf))
  end
end

local function main()
  vim.opt.swapfile = false
  vim.cmd('edit ' .. ws .. '/greet.js')
  local buf = vim.api.nvim_get_current_buf()
  local client = attached(buf)
  if client.config.capabilities.experimental.agent.questions ~= true then
    fail('experimental.agent.questions is not declared')
  end
  say('attached')
  flows[flow](conversation.get(client.id), buf)
  io.stderr:write('DRIVER DONE\n')
  vim.cmd('qa!')
end

coroutine.wrap(function()
  local ok, err = xpcall(main, debug.traceback)
  if not ok then
    fail(tostring(err))
  end
end)()
