-- Drives headless Neovim with the agent-ls plugin set up as the README
-- says and gopls as the user's Go language server, through the model's
-- questions about code (agent/languageQuery): flow "full" finds a
-- definition and references, renames across files (one open, one not)
-- and undoes it; flow "basic" (Neovim 0.7) finds the definition; both
-- then ask the diagnostics of an unsaved edit. Lines starting DRIVER
-- report to the Go test.
local ws = assert(os.getenv('AGENT_LS_TEST_WS'))
local flow = os.getenv('AGENT_LS_TEST_FLOW')
local gopls = assert(os.getenv('AGENT_LS_TEST_GOPLS'))

local function say(msg)
  io.stderr:write('DRIVER: ' .. msg .. '\n')
end

local function fail(msg)
  io.stderr:write('DRIVER FAIL: ' .. msg:gsub('\n', '\n  ') .. '\n')
  vim.cmd('cquit 1')
end

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
    sleep(50)
  end
end

local function has(text, want)
  return text:find(want, 1, true) ~= nil
end

local function buffer_text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
end

local function file_text(path)
  local f = io.open(path)
  if not f then
    return ''
  end
  local s = f:read('*a')
  f:close()
  return s
end

-- gopls starts for every Go buffer, as the user's set-up would.
local gopls_id
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'go',
  callback = function(a)
    local cfg = { name = 'gopls', cmd = { gopls }, root_dir = ws }
    if vim.lsp.start then
      vim.api.nvim_buf_call(a.buf, function()
        vim.lsp.start(cfg)
      end)
    else
      gopls_id = gopls_id or vim.lsp.start_client(cfg)
      vim.lsp.buf_attach_client(a.buf, gopls_id)
    end
  end,
})

local function client_named(b, name)
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = b }) or vim.lsp.buf_get_clients(b)
  for _, c in pairs(clients) do
    if c.name == name and c.initialized then
      return c
    end
  end
end

local conversation = require('agent-ls.conversation')

local function turns_done(conv)
  local _, n = buffer_text(conv.buf):gsub('_Turn completed%._', '')
  return n
end

local function main()
  vim.opt.swapfile = false
  vim.cmd('edit ' .. ws .. '/b.go')
  local buf = vim.api.nvim_get_current_buf()
  wait('agent-ls and gopls to attach', function()
    return client_named(buf, 'agent-ls') and client_named(buf, 'gopls')
  end)
  local client = client_named(buf, 'agent-ls')
  if client.config.capabilities.experimental.agent.language ~= true then
    fail('experimental.agent.language is not declared')
  end
  -- gopls has loaded the package once it can hover.
  wait('gopls to know the package', function()
    local res = vim.lsp.buf_request_sync(buf, 'textDocument/hover',
      { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 2, character = 29 } }, 10000)
    for _, r in pairs(res or {}) do
      if r.result and r.result.contents then
        return true
      end
    end
    return false
  end)
  say('attached')
  local conv = conversation.get(client.id)
  vim.cmd('AgentAsk Where is Greet defined and used?')
  wait('the first turn to end', function()
    return conv.buf and turns_done(conv) >= 1
  end)
  if flow == 'full' then
    if not has(buffer_text(buf), 'return Hello("x") + Hello("y")') or not has(file_text(ws .. '/a.go'), 'func Hello(name string)') then
      fail('the rename is not applied:\n' .. buffer_text(buf) .. '\n' .. file_text(ws .. '/a.go'))
    end
    say('renamed')
    vim.cmd('AgentUndo')
    wait('the undo', function()
      return has(buffer_text(buf), 'return Greet("x") + Greet("y")') and has(file_text(ws .. '/a.go'), 'func Greet(name string)')
    end)
    vim.cmd('write')
    say('undone')
  end
  -- An unsaved edit that does not compile.
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { 'var broken int = "s"' })
  wait('gopls to report the unsaved edit', function()
    return #vim.diagnostic.get(buf) > 0
  end)
  vim.cmd('AgentAsk Does b.go compile?')
  wait('the second turn to end', function()
    return turns_done(conv) >= 2
  end)
  if not vim.bo[buf].modified then
    fail('the unsaved edit was saved')
  end
  io.stderr:write('DRIVER DONE\n')
  vim.cmd('qa!')
end

coroutine.wrap(function()
  local ok, err = xpcall(main, debug.traceback)
  if not ok then
    fail(tostring(err))
  end
end)()
