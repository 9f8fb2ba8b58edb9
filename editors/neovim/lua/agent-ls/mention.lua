-- @-mentions in the prompt: completion from agent/completeMention, and
-- the mentioned files sent as context. @#Name completes the workspace's
-- symbols (the server asks the language servers through
-- agent/languageQuery) and sends the symbol's file and range.
local client = require('agent-ls.client')

local M = {}

-- The server's answer to a completion waits at most this long: the
-- command line is blocked meanwhile.
local timeout_ms = 1500

-- symbols are the symbol items completion answered, by label (#Name).
local symbols = {}

-- items asks the server of the current buffer what @query completes to.
local function items(query)
  local c = client.for_buffer(vim.api.nvim_get_current_buf(), false)
  if not c or not c.initialized then
    return {}
  end
  -- An answer from a folder still being listed (incomplete) is asked
  -- again while the time allows; the last one is taken.
  local deadline = vim.loop.now() + timeout_ms
  local found
  repeat
    local res = client.call(c, 'request_sync', 'agent/completeMention', { query = query, limit = 50 }, math.max(deadline - vim.loop.now(), 1), 0)
    if not res or res.err or type(res.result) ~= 'table' then
      break
    end
    found = res.result.items or {}
  until res.result.incomplete ~= true or vim.loop.now() >= deadline
  found = found or {}
  for _, it in ipairs(found) do
    if it.kind == 'symbol' and type(it.label) == 'string' then
      symbols[it.label] = it
    end
  end
  return found
end
M.items = items

-- symbol is the symbol item of label #Name: one completion showed, or
-- the first the server answers of that name.
local function symbol(label)
  if symbols[label] then
    return symbols[label]
  end
  for _, it in ipairs(items(label)) do
    if it.label == label then
      return it
    end
  end
end

--- complete is the completion of :AgentAsk and of the prompt input: the
--- word being typed, when it starts with @, becomes each match's @label
--- (the rest of the line kept before it for input()'s customlist).
function M.complete(arglead, cmdline)
  local before, word = (arglead or ''):match('^(.-)(@%S*)$')
  if not word then
    -- input() passes the whole line; :AgentAsk the word.
    before, word = (cmdline or ''):match('^(.-)(@%S*)$')
    if not word or arglead ~= cmdline then
      return {}
    end
  end
  local out = {}
  for _, it in ipairs(items(word:sub(2))) do
    if type(it.label) == 'string' then
      table.insert(out, before .. '@' .. it.label)
    end
  end
  return out
end

-- Vim function input() can complete with (customlist needs one).
vim.cmd([[
function! AgentLsCompleteMention(arglead, cmdline, pos) abort
  return luaeval('require("agent-ls.mention").complete(_A[1], _A[2])', [a:arglead, a:cmdline])
endfunction
]])
M.input_completion = 'customlist,AgentLsCompleteMention'

-- diagnostics_context is one context item per buffer with diagnostics,
-- each with them (what @diagnostics sends).
local function diagnostics_context()
  local out = {}
  if not vim.diagnostic then
    return out
  end
  local by_buf = {}
  for _, d in ipairs(vim.diagnostic.get(nil)) do
    by_buf[d.bufnr] = by_buf[d.bufnr] or {}
    table.insert(by_buf[d.bufnr], {
      range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col } },
      severity = d.severity,
      message = d.message,
      source = d.source,
    })
  end
  for buf, diags in pairs(by_buf) do
    if vim.api.nvim_buf_is_valid(buf) and vim.api.nvim_buf_get_name(buf) ~= '' then
      local first, last = math.huge, 0
      for _, d in ipairs(diags) do
        first, last = math.min(first, d.range.start.line), math.max(last, d.range['end'].line)
      end
      table.insert(out, {
        uri = vim.uri_from_bufnr(buf),
        range = { start = { line = first, character = 0 }, ['end'] = { line = last + 1, character = 0 } },
        diagnostics = diags,
      })
    end
  end
  return out
end

--- context lists what the prompt's @-mentions name: each @path that is a
--- file or folder below root (or absolute), each @#Name symbol (its file
--- and range), and @diagnostics.
function M.context(prompt, root)
  local out, seen = {}, {}
  for word in prompt:gmatch('%f[%S]@(%S+)') do
    if word == 'diagnostics' then
      if not seen[word] then
        seen[word] = true
        vim.list_extend(out, diagnostics_context())
      end
    else
      word = word:gsub('[%.,;:!?%)%]}\'"]+$', '')
      local sym = word:sub(1, 1) == '#' and not seen[word] and symbol(word)
      if sym and type(sym.uri) == 'string' then
        seen[word] = true
        table.insert(out, { uri = sym.uri, range = sym.range })
      end
      local path = word:sub(1, 1) == '/' and word or (root .. '/' .. word:gsub('/$', ''))
      if not seen[path] and (vim.fn.filereadable(path) == 1 or vim.fn.isdirectory(path) == 1) then
        seen[path] = true
        table.insert(out, { uri = vim.uri_from_fname(path) })
      end
    end
  end
  return out
end

return M
