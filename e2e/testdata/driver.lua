-- Drives headless Neovim 0.7 through what a user does after pasting the
-- README's snippet: code actions, approvals, answers, stopping a turn,
-- saving. Prompts (the code action list, approvals, the save warning) are
-- the stock ones; the Go test reads them on the terminal and answers with
-- `nvim --server ... --remote-send`. Lines starting DRIVER report to it.
local ws = assert(os.getenv('AGENT_LS_TEST_WS'))
local flow = assert(os.getenv('AGENT_LS_TEST_FLOW')) -- full | buffer | rewind

local function say(msg)
  io.stderr:write('DRIVER: ' .. msg .. '\n')
end

local function fail(msg)
  io.stderr:write('DRIVER FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

-- wait runs Neovim's loop (RPC, callbacks, prompts) until cond holds.
local function wait(what, cond)
  if not vim.wait(120000, cond, 20) then
    fail('timed out waiting for ' .. what)
  end
end

-- The messages the server shows, recorded on their way to the stock
-- handler (which prints them).
local shown = {}
local stock = vim.lsp.handlers['window/showMessage']
vim.lsp.handlers['window/showMessage'] = function(err, result, ctx, config)
  table.insert(shown, result.message)
  return stock(err, result, ctx, config)
end

local function message_with(text)
  for _, m in ipairs(shown) do
    if m:find(text, 1, true) then
      return m
    end
  end
end

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

local function buffer_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n') .. '\n'
end

vim.opt.swapfile = false
local path = ws .. '/greet.js'
local before = read_file(path)
vim.cmd('edit ' .. path)
local bufnr = vim.api.nvim_get_current_buf()
local client
wait('agent-ls to attach', function()
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == 'agent-ls' and c.initialized then
      client = c
    end
  end
  return client ~= nil
end)
say('attached')

-- "Agent: Fix this" on the function's first two lines, selected as the
-- README's visual mapping does.
vim.cmd('normal! 2GVj' .. vim.api.nvim_replace_termcodes('<Esc>', true, false, true))
vim.lsp.buf.range_code_action()
wait('the first answer', function() return message_with('First answer') ~= nil end)
local patched = buffer_text(bufnr)
if not patched:find('Grüß dich, " + name + " 👋', 1, true) then
  fail('the buffer was not patched: ' .. patched)
end
say('first answer: ' .. message_with('First answer'):gsub('\n', ' | '))

if flow == 'rewind' then
  -- "Agent: Rewind last turn" from the stock code action list takes the
  -- patch back in the buffer and on disk.
  wait('the patch on disk', function() return read_file(path) == patched end)
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.lsp.buf.code_action()
  wait('the rewind', function()
    return buffer_text(bufnr) == before and read_file(path) == before
  end)
  say('rewound')
  io.stderr:write('DRIVER DONE\n')
  vim.cmd('qa!')
  return
end

if flow == 'buffer' then
  -- saveAgentEdits off: the file keeps its saved text until the user saves.
  if read_file(path) ~= before then
    fail('the file was written behind the buffer')
  end
else
  -- "Agent: Explain this" at the cursor: Neovim 0.7 sends an empty range.
  vim.api.nvim_win_set_cursor(0, { 2, 4 })
  vim.lsp.buf.code_action()
  wait('the second answer', function() return message_with('Second answer') ~= nil end)
  say('second answer')

  -- A turn that hangs mid-stream, stopped from the code actions.
  vim.lsp.buf.code_action()
  local params = vim.lsp.util.make_range_params()
  params.context = { diagnostics = {} }
  wait('"Agent: Stop" to be offered', function()
    local res = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', params, 5000) or {}
    for _, r in pairs(res) do
      for _, a in ipairs(r.result or {}) do
        if a.title == 'Agent: Stop' then
          return true
        end
      end
    end
    return false
  end)
  vim.lsp.buf.code_action()
  wait('the interrupted turn', function() return message_with('Agent: Interrupted') ~= nil end)
  say('stopped')

  -- The whole conversation, where "Agent: Show conversation" says it is.
  vim.lsp.buf.code_action()
  wait('the conversation', function() return message_with('Agent: the conversation is in ') ~= nil end)
  local conversation = read_file(message_with('Agent: the conversation is in '):match('is in (.*)$'))
  for _, want in ipairs({ 'First answer', 'Second answer', '_Turn interrupted._' }) do
    if not conversation:find(want, 1, true) then
      fail('the conversation lacks ' .. want .. ':\n' .. conversation)
    end
  end
  say('conversation shown')
end

-- Saving the edited buffer.
vim.cmd('write')
if vim.bo[bufnr].modified then
  fail('the buffer is still modified after :write')
end
if read_file(path) ~= patched then
  fail('the saved file differs from the buffer')
end
say('saved')
io.stderr:write('DRIVER DONE\n')
vim.cmd('qa!')
