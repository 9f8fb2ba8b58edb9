-- The agent's questions about code (protocol: agent/languageQuery,
-- declared by experimental.agent.language), answered by the other
-- language servers attached to the file's buffer with the asynchronous
-- vim.lsp.buf_request_all (a file not loaded is loaded hidden first),
-- and diagnostics by vim.diagnostic.get. Positions are converted between
-- agent-ls's position encoding and each server's.
local ui = require('agent-ls.ui')

local M = {}

-- Client methods are called with ':' from 0.11 on (with '.' before).
local method_calls = vim.fn.has('nvim-0.11') == 1
local function call(client, name, ...)
  if method_calls then
    return client[name](client, ...)
  end
  return client[name](...)
end

local methods = {
  definition = 'textDocument/definition',
  references = 'textDocument/references',
  hover = 'textDocument/hover',
  documentSymbols = 'textDocument/documentSymbol',
  workspaceSymbols = 'workspace/symbol',
  rename = 'textDocument/rename',
}

local function clients_of(buf)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = buf })
  end
  local list = {}
  for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
    table.insert(list, c)
  end
  return list
end

local function all_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients()
  end
  return vim.lsp.get_active_clients()
end

-- servers are the clients of buf, other than agent-ls, that answer method.
local function servers(buf, method)
  local found = {}
  for _, c in ipairs(clients_of(buf)) do
    if c.name ~= 'agent-ls' and not call(c, 'is_stopped') and call(c, 'supports_method', method) then
      table.insert(found, c)
    end
  end
  return found
end

-- sleep waits ms without blocking the loop (see ui.await).
local function sleep(ms)
  ui.await(function(finish)
    vim.defer_fn(function()
      finish(true)
    end, ms)
  end)
end

-- buffer_of is the buffer of uri, loaded hidden (its file type detected,
-- so that the user's language servers attach) when it was not.
local function buffer_of(uri)
  local fname = vim.uri_to_fname(uri)
  local buf = vim.fn.bufadd(fname)
  if vim.fn.bufloaded(buf) == 0 then
    vim.fn.bufload(buf)
    if vim.bo[buf].filetype == '' then
      vim.api.nvim_buf_call(buf, function()
        vim.cmd('filetype detect')
      end)
    end
  end
  return buf
end

-- line_text is line lnum (0-based) of the file at uri, as the editor has
-- it when the buffer is loaded, else on disk.
local function line_reader()
  local files = {}
  return function(uri, lnum)
    local fname = vim.uri_to_fname(uri)
    local buf = vim.fn.bufnr(fname)
    if buf >= 0 and vim.fn.bufloaded(buf) == 1 then
      return vim.api.nvim_buf_get_lines(buf, lnum, lnum + 1, false)[1] or ''
    end
    if not files[fname] then
      local ok, lines = pcall(vim.fn.readfile, fname)
      files[fname] = ok and lines or {}
    end
    return files[fname][lnum + 1] or ''
  end
end

-- byte_of is the byte offset in line of char counted in enc; char_of the
-- inverse.
local function byte_of(line, char, enc)
  if enc == 'utf-8' then
    return math.min(char, #line)
  end
  local n, i = 0, 1
  while i <= #line and n < char do
    local b = line:byte(i)
    local w = b >= 0xF0 and 4 or b >= 0xE0 and 3 or b >= 0xC0 and 2 or 1
    n = n + ((enc == 'utf-16' and w == 4) and 2 or 1)
    i = i + w
  end
  return i - 1
end

local function char_of(line, byte, enc)
  if enc == 'utf-8' then
    return byte
  end
  local n, i = 0, 1
  while i <= math.min(byte, #line) do
    local b = line:byte(i)
    local w = b >= 0xF0 and 4 or b >= 0xE0 and 3 or b >= 0xC0 and 2 or 1
    n = n + ((enc == 'utf-16' and w == 4) and 2 or 1)
    i = i + w
  end
  return n
end

-- converter converts positions of the file at a uri from one encoding to
-- another, in place.
local function converter(from, to)
  local line = line_reader()
  local function pos(uri, p)
    if from ~= to and type(p) == 'table' and p.line then
      local text = line(uri, p.line)
      p.character = char_of(text, byte_of(text, p.character, from), to)
    end
  end
  local function range(uri, r)
    if type(r) == 'table' then
      pos(uri, r.start)
      pos(uri, r['end'])
    end
  end
  return { pos = pos, range = range }
end

local function location(conv, l)
  if l.uri then
    conv.range(l.uri, l.range)
  elseif l.targetUri then
    conv.range(l.targetUri, l.targetRange)
    conv.range(l.targetUri, l.targetSelectionRange)
    l.originSelectionRange = nil
  end
end

local function document_symbols(conv, uri, syms)
  for _, s in ipairs(syms) do
    conv.range(uri, s.range)
    conv.range(uri, s.selectionRange)
    if s.location then
      conv.range(s.location.uri or uri, s.location.range)
    end
    document_symbols(conv, uri, s.children or {})
  end
end

local function workspace_edit(conv, we)
  for uri, edits in pairs(we.changes or {}) do
    for _, e in ipairs(edits) do
      conv.range(uri, e.range)
    end
  end
  for _, dc in ipairs(we.documentChanges or {}) do
    if dc.textDocument then
      for _, e in ipairs(dc.edits or {}) do
        conv.range(dc.textDocument.uri, e.range)
      end
    end
  end
end

-- merge turns the servers' answers into one, in agent-ls's encoding.
local function merge(kind, params, answers, enc)
  local list = {}
  for _, a in ipairs(answers) do
    local conv = converter(a.enc, enc)
    local r = a.result
    if kind == 'definition' or kind == 'references' or kind == 'workspaceSymbols' then
      if r.uri or r.targetUri then
        r = { r }
      end
      for _, l in ipairs(r) do
        location(conv, l.location or l)
        table.insert(list, l)
      end
    elseif kind == 'hover' then
      r.range = nil
      return r
    elseif kind == 'documentSymbols' then
      document_symbols(conv, params.uri, r)
      return r
    elseif kind == 'rename' then
      workspace_edit(conv, r)
      return r
    end
  end
  if #list == 0 and (kind == 'hover' or kind == 'documentSymbols' or kind == 'rename') then
    return vim.NIL
  end
  return list
end

-- request asks the servers of buf; returns their answers { enc, result }
-- with a result, or nil and the first error.
local function request(buf, method, params, enc, targets)
  local by_id = {}
  for _, c in ipairs(targets) do
    by_id[c.id] = c
  end
  local function params_for(c)
    local p = vim.deepcopy(params)
    if p.position then
      converter(enc, c.offset_encoding or 'utf-16').pos(p.textDocument.uri, p.position)
    end
    return p
  end
  local results = ui.await(function(finish)
    -- From 0.11 on the params are made per server, in its encoding.
    local arg = method_calls and function(c)
      return params_for(c)
    end or params_for(targets[1])
    vim.lsp.buf_request_all(buf, method, arg, finish)
  end)
  local answers, first_err = {}, nil
  for id, r in pairs(results or {}) do
    local c = by_id[id]
    local err = r.err or r.error
    if c and err then
      first_err = first_err or (c.name .. ': ' .. (err.message or vim.inspect(err)))
    elseif c and r.result ~= nil and r.result ~= vim.NIL then
      table.insert(answers, { enc = c.offset_encoding or 'utf-16', result = r.result })
    end
  end
  return answers, first_err
end

-- diagnostics are those of uri (or of every loaded file with some),
-- as [{ uri, diagnostics }].
local function diagnostics(uri, enc)
  local by_buf = {}
  if uri then
    by_buf[buffer_of(uri)] = true
  else
    for _, d in ipairs(vim.diagnostic.get()) do
      by_buf[d.bufnr] = true
    end
  end
  local out = {}
  for buf in pairs(by_buf) do
    local name = vim.api.nvim_buf_get_name(buf)
    if name ~= '' and vim.bo[buf].buftype == '' then
      local u = vim.uri_from_bufnr(buf)
      local line = line_reader()
      local list = {}
      for _, d in ipairs(vim.diagnostic.get(buf)) do
        local function p(lnum, col)
          return { line = lnum, character = char_of(line(u, lnum), col, enc) }
        end
        table.insert(list, {
          range = { start = p(d.lnum, d.col), ['end'] = p(d.end_lnum or d.lnum, d.end_col or d.col) },
          severity = d.severity, message = d.message, source = d.source, code = d.code,
        })
      end
      if uri or #list > 0 then
        table.insert(out, { uri = u, diagnostics = list })
      end
    end
  end
  return out
end

-- wait_servers waits up to ms for a server of buf that answers method
-- (one that starts as the buffer loads).
local function wait_servers(buf, method, ms)
  local targets = servers(buf, method)
  while #targets == 0 and ms > 0 do
    sleep(100)
    ms = ms - 100
    targets = servers(buf, method)
  end
  return targets
end

-- workspace_buffer is a buffer with a server that answers method.
local function workspace_buffer(method)
  for _, c in ipairs(all_clients()) do
    if c.name ~= 'agent-ls' and call(c, 'supports_method', method) then
      local bufs = vim.lsp.get_buffers_by_client_id(c.id)
      if bufs[1] then
        return bufs[1]
      end
    end
  end
end

local function failed(msg)
  return nil, vim.lsp.rpc_response_error(vim.lsp.protocol.ErrorCodes.RequestFailed or -32803, msg)
end

--- Handler of agent/languageQuery: the LSP result of params.kind, or an
--- error saying why nothing answers.
function M.query(_, params, ctx)
  params = type(params) == 'table' and params or {}
  local own = vim.lsp.get_client_by_id(ctx.client_id)
  local enc = own and own.offset_encoding or 'utf-16'
  if params.kind == 'diagnostics' then
    return diagnostics(params.uri, enc)
  end
  local method = methods[params.kind]
  if not method then
    return failed('unknown kind ' .. tostring(params.kind))
  end
  local buf
  if params.kind == 'workspaceSymbols' then
    buf = workspace_buffer(method)
  elseif type(params.uri) == 'string' then
    buf = buffer_of(params.uri)
  end
  local targets = buf and wait_servers(buf, method, 5000) or {}
  if #targets == 0 then
    return failed('no language server in Neovim answers ' .. method .. (params.uri and (' for ' .. vim.uri_to_fname(params.uri)) or ''))
  end
  local lsp_params
  if params.kind == 'workspaceSymbols' then
    lsp_params = { query = params.query or '' }
  else
    lsp_params = { textDocument = { uri = params.uri }, position = params.position }
    if params.kind == 'references' then
      lsp_params.context = { includeDeclaration = params.includeDeclaration ~= false }
    elseif params.kind == 'rename' then
      lsp_params.newName = params.newName
    end
  end
  local answers, err = request(buf, method, lsp_params, enc, targets)
  if #answers == 0 and err then
    return failed(err)
  end
  return merge(params.kind, params, answers, enc)
end

return M
