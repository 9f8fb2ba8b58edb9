-- Drives headless Neovim with the agent-ls plugin set up as the README
-- says: a sandboxed command asks for the network (network = "ask", the
-- default), the question shows in the picker naming the host, the port
-- and the command, and "Allow once" lets the command through.
-- vim.ui.select is stubbed the way telescope or dressing replace it.
-- Lines starting DRIVER report to the Go test.
local ws = assert(os.getenv('AGENT_LS_TEST_WS'))
local where = assert(os.getenv('AGENT_LS_TEST_HOST'))

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

local function has(text, want)
  return text:find(want, 1, true) ~= nil
end

local function buffer_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
end

-- The picker: records each question and answers "Allow once", later,
-- from the event loop, as a picker with a window does.
local asked = {}
vim.ui.select = function(items, opts, on_choice)
  local shown = {}
  for _, it in ipairs(items) do
    table.insert(shown, opts.format_item and opts.format_item(it) or tostring(it))
  end
  table.insert(asked, { prompt = opts.prompt, items = shown, kind = opts.kind })
  for i, s in ipairs(shown) do
    if s == 'Allow once' then
      vim.schedule(function()
        on_choice(items[i], i)
      end)
      return
    end
  end
  vim.schedule(function()
    on_choice(nil, nil)
  end)
end

local conversation = require('agent-ls.conversation')
vim.opt.swapfile = false
vim.cmd('edit ' .. ws .. '/greet.js')
local buf = vim.api.nvim_get_current_buf()
local client
wait('agent-ls to attach', function()
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = buf }) or vim.lsp.buf_get_clients(buf)
  for _, c in pairs(clients) do
    if c.name == 'agent-ls' and c.initialized then
      client = c
    end
  end
  return client ~= nil
end)
local conv = conversation.get(client.id)

vim.cmd('AgentAsk ZQNET fetch the package')
wait('the answer', function()
  return has(buffer_text(conv.buf), '_Turn completed._')
end)
local q = asked[1]
if #asked ~= 1 or q.kind ~= 'agent-ls.approval' then
  fail('the network question was not asked once in the picker: ' .. vim.inspect(asked))
end
if not has(q.prompt, 'a command wants the network: ' .. where) or not has(q.prompt, 'curl') or not has(q.prompt, 'on this machine') then
  fail('the question does not name the host, the port, the command and the local service: ' .. vim.inspect(q))
end
local items = table.concat(q.items, '|')
if items ~= 'Allow once|Allow for this session|Always allow ' .. where .. ' (user config)|Deny' then
  fail('the choices: ' .. items)
end
local text = buffer_text(conv.buf)
if not has(text, 'The registry answered.') then
  fail('the conversation lacks the answer:\n' .. text)
end
say('network allowed once')
io.stderr:write('DRIVER DONE\n')
vim.cmd('qa!')
