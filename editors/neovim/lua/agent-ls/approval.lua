-- Approvals (protocol section 6): agent/requestApproval, and the
-- window/showMessageRequest handler, both through vim.ui.select. Both
-- always answer: a handler that returned plain nil would leave the server
-- waiting.
local ui = require('agent-ls.ui')
local visible = require('agent-ls.visible')

local M = {}

local titles = {
  allowOnce = 'Allow once',
  allowAlways = 'Allow always',
  rejectOnce = 'Reject',
  rejectAlways = 'Reject always',
  abort = 'Abort turn',
}
local order = { 'allowOnce', 'allowAlways', 'allowPersist', 'rejectOnce', 'rejectAlways', 'abort' }

-- The network question's buttons (kind network): it never aborts the turn.
-- allowPersist is one button per offered pattern (see network_persist).
local function network_titles(p)
  local has_pattern = type(p.patterns) == 'table' and p.patterns[1] ~= nil
  return {
    allowOnce = 'Allow once',
    allowAlways = 'Allow for this session',
    allowPersist = has_pattern and 'Always allow' or nil,
    rejectOnce = 'Deny',
  }
end

-- The network question's allowPersist items: one per offered pattern (the
-- exact host first, then its wildcards), at most three; the answer names
-- the pattern chosen.
local function network_persist(p)
  local items = {}
  for i, pattern in ipairs(p.patterns) do
    if i > 3 then
      break
    end
    table.insert(items, {
      decision = 'allowPersist',
      pattern = tostring(pattern),
      title = 'Always allow ' .. visible.line(tostring(pattern)) .. ' (user config)',
    })
  end
  return items
end

local function path_of(uri)
  if type(uri) == 'string' and uri:match('^file:') then
    return vim.uri_to_fname(uri)
  end
  return uri
end

-- one_line keeps a picker's prompt on one line per fact: the control and
-- bidi characters a hostile command, file name or reason might carry are
-- shown escaped.
local one_line = visible.line

--- The prompt shown for a request: what, where, why. The command is
--- quoted one shell word per argument, as agent-ls quotes it.
function M.prompt(p)
  local lines = {}
  if p.kind == 'network' then
    local host = tostring(p.host or '')
    if host:find(':', 1, true) then
      host = '[' .. host .. ']'
    end
    table.insert(lines, 'a command wants the network: ' .. one_line(host .. ':' .. tostring(p.port or '')))
  elseif p.kind == 'exec' then
    table.insert(lines, 'agent-ls wants to run: ' .. visible.shell_words(p.command))
    if p.cwd then
      table.insert(lines, 'in ' .. one_line(path_of(p.cwd)))
    end
  elseif p.kind == 'patch' then
    local files = {}
    for _, f in ipairs(type(p.files) == 'table' and p.files or {}) do
      table.insert(files, one_line(vim.fn.fnamemodify(path_of(f), ':~:.')))
    end
    table.insert(lines, 'agent-ls wants to change ' .. (#files > 0 and table.concat(files, ', ') or 'files'))
  else
    local what = tostring(p.tool or 'a tool')
    if p.server then
      what = tostring(p.server) .. '/' .. what
    end
    table.insert(lines, 'agent-ls wants to call ' .. one_line(what))
  end
  if p.reason and p.reason ~= '' then
    table.insert(lines, 'because: ' .. one_line(p.reason))
  end
  -- One line: pickers show the prompt as a title.
  return table.concat(lines, ' — ')
end

--- Handler of agent/requestApproval: answers { decision }.
function M.request_approval(_, params)
  -- A malformed request is rejected, never allowed and never left
  -- unanswered.
  local ok, res = pcall(M.ask, type(params) == 'table' and params or {})
  if not ok then
    vim.notify('agent-ls: malformed approval request rejected: ' .. visible.text(res), vim.log.levels.WARN)
    return { decision = 'rejectOnce' }
  end
  return res
end

--- Asks the user about an approval request; returns { decision } (and
--- the chosen pattern for a network question's allowPersist).
function M.ask(params)
  local names = params.kind == 'network' and network_titles(params) or titles
  local offered = {}
  for _, o in ipairs(type(params.options) == 'table' and params.options or {}) do
    if names[o] then
      offered[o] = true
    end
  end
  if next(offered) == nil then
    offered = { allowOnce = true, rejectOnce = true }
  end
  if params.kind ~= 'network' then
    offered.abort = true
  end
  local items = {}
  for _, d in ipairs(order) do
    if offered[d] and d == 'allowPersist' and params.kind == 'network' then
      vim.list_extend(items, network_persist(params))
    elseif offered[d] then
      table.insert(items, { decision = d, title = names[d] })
    end
  end
  local has_diff = params.kind == 'patch' and type(params.diff) == 'string' and params.diff ~= ''
  if has_diff then
    table.insert(items, { show_diff = true, title = 'Show the diff' })
  end
  local prompt = M.prompt(params)
  local diff_buf
  while true do
    local choice = ui.select(items, {
      prompt = prompt,
      kind = 'agent-ls.approval',
      format_item = function(item)
        return item.title
      end,
    })
    if choice and choice.show_diff then
      if not (diff_buf and vim.api.nvim_buf_is_valid(diff_buf)) then
        diff_buf = ui.show_diff(params.diff, 'agent-ls://approval/' .. tostring(params.approvalId or ''))
      end
    else
      if diff_buf and vim.api.nvim_buf_is_valid(diff_buf) then
        for _, win in ipairs(vim.fn.win_findbuf(diff_buf)) do
          pcall(vim.api.nvim_win_close, win, true)
        end
      end
      return { decision = choice and choice.decision or 'rejectOnce', pattern = choice and choice.pattern or nil }
    end
  end
end

--- Handler of window/showMessageRequest: an action or vim.NIL, never nil.
function M.show_message_request(_, params)
  params = params or {}
  local actions = params.actions or {}
  -- agent-ls escapes its messages; a message is shown escaped whoever
  -- sent it.
  local message = visible.text(params.message)
  if #actions == 0 then
    vim.notify(message, vim.log.levels.INFO)
    return vim.NIL
  end
  local choice = ui.select(actions, {
    prompt = message,
    kind = 'agent-ls.message',
    format_item = function(a)
      return visible.line(a.title)
    end,
  })
  return choice or vim.NIL
end

return M
