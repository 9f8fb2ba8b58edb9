-- The conversation buffer: agent/event notifications (protocol section 3)
-- drawn as Markdown, appended as they arrive. The buffer is a scratch
-- buffer the user cannot change by accident; the text streams in at its
-- end, and a window whose cursor was on the last line follows it while
-- one whose cursor the user moved stays where it is.
--
-- Everything drawn is the model's, the repository's or a server's text:
-- every line goes through visible (control and bidi characters escaped)
-- on its way into the buffer, in append_text and set_lines below.
local visible = require('agent-ls.visible')

local M = {}

local has_winbar = vim.fn.has('nvim-0.8') == 1

local options -- set by setup
local by_client = {} -- client id -> conversation

local Conv = {}
Conv.__index = Conv

function M.setup(opts)
  options = opts
end

local function human(n)
  n = tonumber(n) or 0
  if n >= 1000000 then
    return string.format('%.1fM', n / 1000000)
  elseif n >= 1000 then
    return string.format('%.1fk', n / 1000)
  end
  return tostring(n)
end

--- One connection through the network proxy (a networkAccess event), such
--- as "  ▸ Network: registry.npmjs.org:443 allowed, 1.2 MB".
function M.network_text(ev)
  local host = tostring(ev.host or '')
  if host:find(':', 1, true) then
    host = '[' .. host .. ']'
  end
  local line = string.format('  ▸ Network: %s:%s %s', host, tostring(ev.port or ''), tostring(ev.decision or ''))
  if ev.decision == 'allowed' then
    local n = tonumber(ev.bytes) or 0
    local size = n >= 1e9 and string.format('%.1f GB', n / 1e9)
      or n >= 1e6 and string.format('%.1f MB', n / 1e6)
      or n >= 1e3 and string.format('%.1f kB', n / 1e3)
      or string.format('%d B', n)
    line = line .. ', ' .. size
  end
  return line
end

--- What is left of the provider's rate limits (the usage event's
--- rateLimits), such as "limits 40 req, 1.2k tok left"; nil when unknown.
function M.limits_text(rl)
  if type(rl) ~= 'table' then
    return nil
  end
  local left = {}
  if rl.remainingRequests then
    table.insert(left, human(rl.remainingRequests) .. ' req')
  end
  if rl.remainingTokens then
    table.insert(left, human(rl.remainingTokens) .. ' tok')
  end
  if #left == 0 then
    return nil
  end
  return 'limits ' .. table.concat(left, ', ') .. ' left'
end

--- A short line for a statusline: the context the next request fills
--- and the rate limits left, such as "ctx 20% · limits 40 req left".
function Conv:status_text()
  local u = self.usage
  if not u then
    return ''
  end
  local parts = {}
  if u.contextWindow and u.contextWindow > 0 and u.contextTokens then
    table.insert(parts, string.format('ctx %d%%', math.floor(100 * u.contextTokens / u.contextWindow)))
  elseif u.contextTokens then
    table.insert(parts, 'ctx ' .. human(u.contextTokens))
  end
  local limits = M.limits_text(u.rateLimits)
  if limits then
    table.insert(parts, limits)
  end
  return table.concat(parts, ' · ')
end

local function path_of(uri)
  if type(uri) == 'string' and uri:match('^file:') then
    return vim.fn.fnamemodify(vim.uri_to_fname(uri), ':~:.')
  end
  return tostring(uri)
end

local function split_lines(s)
  return vim.split(s or '', '\n', { plain = true })
end

--- The conversation of client id, made when first needed.
function M.get(client_id, root)
  local c = by_client[client_id]
  if c and vim.api.nvim_buf_is_valid(c.buf) then
    return c
  end
  c = setmetatable({ client_id = client_id, root = root or vim.fn.getcwd() }, Conv)
  c:make_buffer()
  c:reset()
  by_client[client_id] = c
  return c
end

--- The conversation of client id if there is one.
function M.find(client_id)
  return by_client[client_id]
end

--- The conversation whose buffer is buf, if any.
function M.of_buffer(buf)
  for _, c in pairs(by_client) do
    if c.buf == buf then
      return c
    end
  end
end

--- Forgets the conversation of a client that stopped (its buffer stays
--- readable).
function M.detach(client_id)
  local c = by_client[client_id]
  if c and vim.api.nvim_buf_is_valid(c.buf) then
    c.running = false
    pcall(c.put, c, { '_agent-ls stopped._' })
    pcall(c.update_bar, c)
  end
  by_client[client_id] = nil
end

function Conv:make_buffer()
  local buf = vim.api.nvim_create_buf(false, true)
  self.buf = buf
  local name = 'agent-ls://conversation' .. self.root
  if vim.fn.bufexists(name) == 1 then
    name = name .. '#' .. tostring(self.client_id)
  end
  pcall(vim.api.nvim_buf_set_name, buf, name)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_option(buf, 'undolevels', -1)
  vim.bo[buf].filetype = 'markdown'
  vim.bo[buf].modifiable = false
  vim.api.nvim_buf_set_keymap(buf, 'n', 'q', '<Cmd>AgentToggle<CR>', { noremap = true, silent = true, desc = 'hide the conversation' })
end

--- Empties the conversation (a new or resumed session).
function Conv:reset(title)
  self.folds = {}
  self.block = nil
  self.stream_item = nil
  self.streamed = {}
  self.calls = {}
  self.diffs_shown = {}
  self.turn_changed = {}
  self.changed_turns = {}
  self.usage = nil
  self.running = false
  self.queue = { items = {}, paused = false }
  self.mode = nil
  self:edit(function()
    vim.api.nvim_buf_set_lines(self.buf, 0, -1, false, { '# agent-ls — ' .. visible.line(title or vim.fn.fnamemodify(self.root, ':~')) })
  end)
  for _, win in ipairs(self:windows()) do
    vim.api.nvim_win_call(win, function()
      vim.cmd('silent! normal! zE')
    end)
  end
  self:update_bar()
end

-- edit runs f with the buffer modifiable, keeping windows that followed
-- the end of the buffer at its end.
function Conv:edit(f)
  local buf = self.buf
  local last = vim.api.nvim_buf_line_count(buf)
  local following = {}
  for _, win in ipairs(self:windows()) do
    if vim.api.nvim_win_get_cursor(win)[1] >= last then
      table.insert(following, win)
    end
  end
  vim.bo[buf].modifiable = true
  local ok, err = pcall(f)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  if not ok then
    error(err)
  end
  local n = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(following) do
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_set_cursor(win, { n, 0 })
    end
  end
end

function Conv:line_count()
  return vim.api.nvim_buf_line_count(self.buf)
end

function Conv:last_line()
  return vim.api.nvim_buf_get_lines(self.buf, -2, -1, false)[1] or ''
end

-- set_lines is nvim_buf_set_lines of the conversation's buffer, with
-- each line's hidden characters escaped.
function Conv:set_lines(first, last, lines)
  vim.api.nvim_buf_set_lines(self.buf, first, last, false, visible.lines(lines))
end

--- Appends whole lines at the end.
function Conv:append_lines(lines)
  self:edit(function()
    self:set_lines(-1, -1, lines)
  end)
end

--- Appends streamed text to the end of the last line; "\n" starts new
--- lines.
function Conv:append_text(text)
  if text == nil or text == '' then
    return
  end
  self:edit(function()
    local row = vim.api.nvim_buf_line_count(self.buf) - 1
    local col = #(vim.api.nvim_buf_get_lines(self.buf, row, row + 1, false)[1] or '')
    vim.api.nvim_buf_set_text(self.buf, row, col, row, col, split_lines(visible.text(text)))
  end)
end

--- Makes sure what comes next starts a paragraph of its own: one blank
--- line after what came before, and an empty last line to write into.
function Conv:paragraph()
  self:close_block()
  local tail = vim.api.nvim_buf_get_lines(self.buf, -3, -1, false)
  local last, prev = tail[#tail], tail[#tail - 1]
  if last ~= '' then
    self:append_lines({ '', '' })
  elseif prev ~= nil and prev ~= '' then
    self:append_lines({ '' })
  end
end

--- Starts a paragraph with lines.
function Conv:put(lines)
  self:paragraph()
  self:edit(function()
    self:set_lines(-2, -1, lines)
  end)
end

--- Adds lines right below what came last (no blank line between).
function Conv:add(lines)
  self:close_block()
  if self:last_line() == '' and self:line_count() > 1 then
    local prev = vim.api.nvim_buf_get_lines(self.buf, -3, -2, false)[1]
    if prev ~= '' then
      self:edit(function()
        self:set_lines(-2, -1, lines)
      end)
      return
    end
  end
  self:append_lines(lines)
end

--- Closes an open output block, folding it when it is long.
function Conv:close_block()
  local b = self.block
  if not b then
    return
  end
  self.block = nil
  if self:last_line() ~= '' then
    self:append_lines({ '```' })
  else
    self:edit(function()
      vim.api.nvim_buf_set_lines(self.buf, -2, -1, false, { '```' })
    end)
  end
  self:fold(b.start, self:line_count())
end

--- A fenced block of lines, folded when long.
function Conv:block_lines(lang, lines)
  local all = { '```' .. lang }
  vim.list_extend(all, lines)
  table.insert(all, '```')
  self:add(all)
  self:fold(self:line_count() - #all + 1, self:line_count())
end

function Conv:fold(first, last)
  if last - first + 1 <= options.conversation.fold_lines + 2 then
    return
  end
  table.insert(self.folds, { first, last })
  for _, win in ipairs(self:windows()) do
    self:make_fold(win, first, last)
  end
end

function Conv:make_fold(win, first, last)
  vim.api.nvim_win_call(win, function()
    vim.cmd(string.format('silent! %d,%dfold', first, last))
  end)
end

--- Windows showing the conversation.
function Conv:windows()
  if not vim.api.nvim_buf_is_valid(self.buf) then
    return {}
  end
  return vim.fn.win_findbuf(self.buf)
end

--- The text of the winbar (statusline on Neovim 0.7): model, tokens,
--- context, whether a turn runs.
function Conv:bar_text()
  local parts = { 'agent-ls' }
  if self.model then
    table.insert(parts, self.model)
  end
  local u = self.usage
  if u then
    local t = u.total or u
    table.insert(parts, string.format('tokens in %s (cached %s) out %s', human(t.inputTokens), human(t.cachedInputTokens), human(t.outputTokens)))
    if u.contextTokens then
      if u.contextWindow and u.contextWindow > 0 then
        table.insert(parts, string.format('context %s/%s', human(u.contextTokens), human(u.contextWindow)))
      else
        table.insert(parts, 'context ' .. human(u.contextTokens))
      end
    end
    local limits = M.limits_text(u.rateLimits)
    if limits then
      table.insert(parts, limits)
    end
  end
  if self.mode == 'plan' then
    table.insert(parts, 'plan mode')
  end
  if self.running then
    table.insert(parts, 'running…')
  end
  local queued = #self.queue.items
  if queued > 0 then
    table.insert(parts, string.format('%d queued%s', queued, self.queue.paused and ' (paused)' or ''))
  end
  return table.concat(parts, ' · ')
end

--- How many prompts wait, counting turn_id (just queued) when the
--- queueChanged event that holds it has not come yet.
function Conv:queued_count(turn_id)
  for _, it in ipairs(self.queue.items) do
    if it.turnId == turn_id then
      return #self.queue.items
    end
  end
  return #self.queue.items + 1
end

--- Takes in a queueChanged event: the session's whole queue.
function Conv:set_queue(ev)
  local items = {}
  for _, it in ipairs(type(ev.items) == 'table' and ev.items or {}) do
    if type(it) == 'table' and type(it.turnId) == 'string' then
      table.insert(items, { turnId = it.turnId, prompt = tostring(it.prompt or ''), mode = it.mode })
    end
  end
  local was_paused = self.queue.paused
  self.queue = { items = items, paused = ev.paused == true }
  if self.queue.paused and not was_paused and #items > 0 and not self.replaying then
    self:put({ string.format('_%d queued prompt(s) wait, since the last turn did not complete: :AgentResume sends them on, :AgentQueue edits them._', #items) })
  end
  self:update_bar()
end

function Conv:update_bar()
  local text = visible.line(self:bar_text()):gsub('%%', '%%%%')
  for _, win in ipairs(self:windows()) do
    if has_winbar then
      vim.wo[win].winbar = text
    else
      vim.wo[win].statusline = text
    end
  end
end

--- Shows the conversation without moving the cursor out of the current
--- window; returns its window.
function Conv:show()
  local wins = self:windows()
  if #wins > 0 then
    return wins[1]
  end
  local from = vim.api.nvim_get_current_win()
  local o = options.conversation
  local win
  if o.layout == 'float' then
    local width = math.min(math.max(40, o.size), vim.o.columns - 4)
    local height = math.max(5, vim.o.lines - 6)
    win = vim.api.nvim_open_win(self.buf, false, {
      relative = 'editor',
      width = width,
      height = height,
      row = 1,
      col = vim.o.columns - width - 2,
      border = 'rounded',
      style = 'minimal',
    })
  else
    vim.cmd(o.layout == 'split' and 'botright split' or 'botright vsplit')
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, self.buf)
    if o.layout == 'split' then
      vim.api.nvim_win_set_height(win, o.size)
      vim.wo[win].winfixheight = true
    else
      vim.api.nvim_win_set_width(win, o.size)
      vim.wo[win].winfixwidth = true
    end
    if vim.api.nvim_win_is_valid(from) then
      vim.api.nvim_set_current_win(from)
    end
  end
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].number = false
  vim.wo[win].relativenumber = false
  vim.wo[win].foldmethod = 'manual'
  vim.wo[win].foldenable = true
  vim.wo[win].foldlevel = 0
  vim.api.nvim_win_set_cursor(win, { self:line_count(), 0 })
  for _, f in ipairs(self.folds) do
    self:make_fold(win, f[1], f[2])
  end
  self:update_bar()
  return win
end

function Conv:hide()
  for _, win in ipairs(self:windows()) do
    if #vim.api.nvim_list_wins() > 1 then
      vim.api.nvim_win_close(win, false)
    end
  end
end

function Conv:toggle()
  if #self:windows() > 0 then
    self:hide()
  else
    self:show()
  end
end

local step_box = { completed = '[x]', in_progress = '[-]', pending = '[ ]' }
local status_mark = { completed = '✓', failed = '✗', rejected = '✗' }

--- Draws one agent/event (live, or an item of agent/resumeSession).
function Conv:on_event(ev)
  local t = ev.type
  if ev.sessionId and self.session_id and ev.sessionId ~= self.session_id and t ~= 'turnStarted' then
    -- A turn of a conversation no longer shown (after :AgentNew or
    -- :AgentSessions) goes on, but is not drawn into this one.
    return
  end
  if ev.sessionId and ev.sessionId ~= self.session_id and t == 'turnStarted' then
    if self.session_id then
      self:put({ '_Session ' .. tostring(ev.sessionId) .. '._' })
    end
    self.session_id = ev.sessionId
  end
  if t == 'turnStarted' then
    self.turn_id = ev.turnId
    -- :AgentEdit offers a turn's prompt to edit.
    self.prompts = self.prompts or {}
    self.prompts[ev.turnId or ''] = ev.prompt
    self.running = ev.seq ~= nil and not self.replaying
    local lines = { '## You', '' }
    vim.list_extend(lines, split_lines(ev.prompt))
    vim.list_extend(lines, { '', '## Agent' })
    self:put(lines)
    self.stream_item = nil
    self.last_call = nil
    self:update_bar()
  elseif t == 'messageDelta' then
    if self.stream_item ~= ev.itemId then
      self:paragraph()
      self.stream_item = ev.itemId
      self.streamed[ev.itemId or ''] = true
      self.last_call = nil
    end
    self:append_text(ev.delta)
  elseif t == 'message' then
    if not self.streamed[ev.itemId or ''] then
      self:paragraph()
      self:append_text(ev.text)
    end
    self.stream_item = nil
    self.last_call = nil
  elseif t == 'reasoning' then
    local lines = {}
    for _, l in ipairs(split_lines(ev.text)) do
      table.insert(lines, '> ' .. l)
    end
    self:put(lines)
    self.stream_item = nil
    self.last_call = nil
  elseif t == 'toolCall' then
    self.stream_item = nil
    local title = (type(ev.title) == 'string' and ev.title ~= '') and ev.title or tostring(ev.tool)
    if ev.server then
      title = tostring(ev.server) .. '/' .. title
    end
    title = title:gsub('\n', ' ')
    self.calls[ev.callId or ''] = { tool = ev.tool, kind = ev.kind, title = title }
    self:put({ '▸ ' .. title })
    self.last_call = ev.callId
  elseif t == 'execOutput' then
    local call = self.calls[ev.callId or ''] or {}
    call.streamed = true
    if not self.block or self.block.call ~= ev.callId then
      if self.last_call ~= ev.callId then
        self:put({ '▸ ' .. (call.title or 'output') })
      else
        self:close_block()
      end
      self:add({ '```text', '' })
      self.block = { call = ev.callId, start = self:line_count() - 1 }
      self.last_call = ev.callId
    end
    self:append_text(ev.chunk)
  elseif t == 'toolResult' then
    local call = self.calls[ev.callId or ''] or {}
    if self.block and self.block.call == ev.callId then
      self:close_block()
    elseif call.kind == 'execute' and not call.streamed and type(ev.output) == 'string' and ev.output ~= '' then
      if self.last_call ~= ev.callId then
        self:put({ '▸ ' .. (call.title or tostring(ev.tool)) })
      end
      self:block_lines('text', split_lines((ev.output:gsub('\n$', ''))))
      self.last_call = ev.callId
    end
    local line = '  ' .. (status_mark[ev.status] or '·')
    if self.last_call ~= ev.callId then
      line = line .. ' ' .. (call.title or tostring(ev.tool))
    end
    line = line .. ' ' .. tostring(ev.status or '')
    if tonumber(ev.durationMs) then
      line = line .. string.format(' (%d ms)', tonumber(ev.durationMs))
    end
    if ev.status ~= 'completed' and type(ev.output) == 'string' and ev.output ~= '' and call.kind ~= 'execute' then
      line = line .. ': ' .. split_lines(ev.output)[1]
    end
    self:add({ line })
  elseif t == 'fileChange' then
    local lines = {}
    for _, ch in ipairs(ev.changes or {}) do
      local where = path_of(ch.uri)
      if ch.newUri then
        where = where .. ' → ' .. path_of(ch.newUri)
      end
      table.insert(lines, string.format('✎ %s %s (+%d -%d) %s', tostring(ch.kind or 'update'), where,
        tonumber(ch.additions) or 0, tonumber(ch.deletions) or 0, tostring(ev.status or '')))
    end
    if self.last_call == ev.callId then
      self:add(lines)
    else
      self:put(lines)
    end
    self.last_call = ev.callId
    if type(ev.diff) == 'string' and ev.diff ~= '' and not self.diffs_shown[ev.callId or ''] then
      self.diffs_shown[ev.callId or ''] = true
      self:block_lines('diff', split_lines((ev.diff:gsub('\n$', ''))))
    end
    if ev.status == 'applied' then
      self.turn_changed[ev.turnId or ''] = true
    end
  elseif t == 'plan' then
    local lines = { '**Plan**' }
    if type(ev.explanation) == 'string' and ev.explanation ~= '' then
      vim.list_extend(lines, split_lines(ev.explanation))
    end
    for _, st in ipairs(ev.steps or {}) do
      table.insert(lines, string.format('- %s %s', step_box[st.status] or '[ ]', (tostring(st.step):gsub('\n', ' '))))
    end
    self:put(lines)
    self.last_call = nil
  elseif t == 'approval' then
    -- Decisions the policy took alone (autoAllow) are not worth a line.
    if ev.decision ~= 'autoAllow' then
      self:add({ string.format('  ⚑ %s: %s', tostring(ev.kind or 'approval'), tostring(ev.decision or '')) })
    end
  elseif t == 'queueChanged' then
    self:set_queue(ev)
  elseif t == 'modeChanged' then
    self.mode = ev.mode
    self:put({ ev.mode == 'plan' and '_Plan mode: the agent investigates and plans, and changes nothing._' or '_Default mode._' })
    self:update_bar()
  elseif t == 'steered' then
    local lines = { '## You (while it worked)', '' }
    vim.list_extend(lines, split_lines(ev.text))
    vim.list_extend(lines, { '', '## Agent' })
    self:put(lines)
    self.stream_item = nil
    self.last_call = nil
  elseif t == 'usage' then
    self.usage = ev
    self:update_bar()
  elseif t == 'retry' then
    self:put({ string.format('_Retrying (attempt %s): %s_', tostring(ev.attempt), (tostring(ev.message):gsub('\n', ' '))) })
  elseif t == 'webSearch' and ev.status == 'searching' and (ev.query or '') == '' then
    -- The search has begun (the progress message says so); its end
    -- follows with the query.
    self:update_bar()
  elseif t == 'webSearch' then
    local lines = { string.format('  ▸ Web search: %s (%s)', tostring(ev.query or ''), tostring(ev.status or '')) }
    for _, src in ipairs(type(ev.sources) == 'table' and ev.sources or {}) do
      table.insert(lines, '    - ' .. tostring(src.url or '') .. (src.title and (' ' .. src.title) or ''))
    end
    self:add(lines)
  elseif t == 'networkAccess' then
    -- A terminal's connection between turns belongs to no turn: its
    -- terminal buffer shows what its command did.
    if ev.turnId ~= nil and ev.turnId ~= '' then
      self:add({ M.network_text(ev) })
    end
  elseif t == 'compacted' then
    self:put({ string.format('_History compacted: %s → %s tokens._', human(ev.tokensBefore), human(ev.tokensAfter)) })
  elseif t == 'turnCompleted' then
    local line = '_Turn ' .. tostring(ev.status) .. '._'
    if type(ev.error) == 'string' and ev.error ~= '' then
      line = '_Turn ' .. tostring(ev.status) .. ': ' .. ev.error:gsub('\n', ' ') .. '_'
    end
    self:put({ line })
    self.running = false
    self.last_call = nil
    if self.turn_changed[ev.turnId or ''] then
      table.insert(self.changed_turns, { sessionId = ev.sessionId, turnId = ev.turnId })
    end
    self:update_bar()
  end
end

--- Redraws a resumed session from its history items.
function Conv:replay(res)
  self:reset(res.sessionId)
  self.session_id = res.sessionId
  self.model = res.model or self.model
  self.mode = res.mode or self.mode
  self.replaying = true
  local ok, err = pcall(function()
    for _, item in ipairs(res.items or {}) do
      self:on_event(item)
    end
  end)
  self.replaying = false
  self.running = false
  self:update_bar()
  if not ok then
    error(err)
  end
end

return M
