-- Review before apply (protocol section 5.5): each agent/requestReview
-- opens the proposed change in a scratch buffer (filetype diff) where the
-- user accepts or rejects hunk by hunk; the answer names the accepted
-- hunks, and the server applies those alone. The keys are shown in the
-- window's winbar (its statusline on Neovim 0.7).
--
-- Neovim 0.9 and later run the request's handler in a coroutine: it
-- yields while the review is open, and the user works with the buffer as
-- with any other (the keys are buffer-local mappings). Neovim 0.7 and 0.8
-- must answer before the handler returns: there the review is modal, the
-- handler reads the keys itself (getchar) while Neovim's loop goes on, so
-- the turn's end still closes it.
local M = {}

local has_winbar = vim.fn.has('nvim-0.8') == 1
local ns = vim.api.nvim_create_namespace('agent-ls.review')

local open = {} -- the reviews waiting for the user, oldest first
local count = 0

M.keys_help = 'a accept · r reject · A/R all · c comment · <CR> apply · q reject all'

local function path_of(uri)
  if type(uri) == 'string' and uri:match('^file:') then
    return vim.fn.fnamemodify(vim.uri_to_fname(uri), ':~:.')
  end
  return tostring(uri)
end

local visible = require('agent-ls.visible')
local one_line = visible.line

-- parse_diff reads the request's diff: its sections (one per file with
-- hunks, from its ---/+++ lines) and their hunks, each from its @@ line
-- for as many lines as the @@ line counts (so a deleted "-- x" line
-- followed by an added "++ y" line is not taken for a new section).
local function parse_diff(lines)
  local sections = {}
  local cur
  local old_left, new_left = 0, 0
  local i = 1
  while i <= #lines do
    local l = lines[i]
    if old_left > 0 or new_left > 0 then
      local c = l:sub(1, 1)
      if c == ' ' or l == '' then
        old_left, new_left = old_left - 1, new_left - 1
      elseif c == '-' then
        old_left = old_left - 1
      elseif c == '+' then
        new_left = new_left - 1
      elseif c ~= '\\' then
        error(string.format('line %d of the diff is not part of its hunk', i), 0)
      end
      if old_left < 0 or new_left < 0 then
        error(string.format('the hunk before line %d of the diff is longer than its @@ line says', i), 0)
      end
      cur.hunks[#cur.hunks].last = i
    elseif l:match('^@@ ') then
      local a, b, c, d = l:match('^@@ %-(%d+),?(%d*) %+(%d+),?(%d*) @@')
      if not a then
        error(string.format('line %d of the diff is not a hunk header: %s', i, l), 0)
      end
      if not cur then
        error(string.format('the hunk at line %d of the diff has no file', i), 0)
      end
      old_left, new_left = tonumber(b ~= '' and b or '1'), tonumber(d ~= '' and d or '1')
      table.insert(cur.hunks, { line = i, last = i, header = l })
    elseif l:match('^%-%-%- ') and (lines[i + 1] or ''):match('^%+%+%+ ') then
      cur = { line = i, hunks = {} }
      table.insert(sections, cur)
      i = i + 1
    elseif l:sub(1, 1) == '\\' and cur and #cur.hunks > 0 then
      cur.hunks[#cur.hunks].last = i
    end
    i = i + 1
  end
  if old_left > 0 or new_left > 0 then
    error('the diff ends inside a hunk', 0)
  end
  return sections
end

--- new_review checks params and makes the review: its buffer lines (a
--- line for each file without hunks, then the diff) and its items, the
--- things decided one by one (each hunk, each file without hunks).
local function new_review(params, client_id)
  if type(params) ~= 'table' or type(params.changes) ~= 'table' or #params.changes == 0 then
    error('no changes', 0)
  end
  local diff = params.diff
  if diff == nil or diff == vim.NIL then
    diff = ''
  end
  if type(diff) ~= 'string' then
    error('diff is not a string', 0)
  end
  local r = {
    client_id = client_id,
    session_id = params.sessionId,
    turn_id = params.turnId,
    call_id = params.callId,
    items = {},
    comment = '',
  }
  local head = {}
  for i, ch in ipairs(params.changes) do
    if type(ch) ~= 'table' or type(ch.uri) ~= 'string' then
      error('change ' .. i .. ' has no uri', 0)
    end
    local n = tonumber(ch.hunks) or 0
    if n < 0 or n ~= math.floor(n) then
      error('change ' .. i .. ' has a bad hunk count', 0)
    end
    if n == 0 then
      local where = path_of(ch.uri)
      if type(ch.newUri) == 'string' then
        where = where .. ' → ' .. path_of(ch.newUri)
      end
      local kind = type(ch.kind) == 'string' and ch.kind or 'change'
      table.insert(head, string.format('# %s %s (no lines to review: applied only if everything is accepted)', one_line(kind), one_line(where)))
    end
  end
  local diff_lines = vim.split((diff:gsub('\n$', '')), '\n', { plain = true })
  if diff == '' then
    diff_lines = {}
  end
  local sections = parse_diff(diff_lines)
  r.lines = {}
  vim.list_extend(r.lines, head)
  local offset = #r.lines
  vim.list_extend(r.lines, diff_lines)
  -- The sections go, in order, to the changes with hunks; hunks are
  -- numbered per uri, on through the diff should a file come twice.
  local next_section, seen = 1, {}
  local headline = 0
  r.line_items = {} -- buffer line -> list of item indices
  local function mark(first, last, idx)
    for l = first, last do
      r.line_items[l] = r.line_items[l] or {}
      table.insert(r.line_items[l], idx)
    end
  end
  for _, ch in ipairs(params.changes) do
    local n = tonumber(ch.hunks) or 0
    if n == 0 then
      headline = headline + 1
      table.insert(r.items, { uri = ch.uri, line = headline })
      mark(headline, headline, #r.items)
    else
      local s = sections[next_section]
      next_section = next_section + 1
      if not s or #s.hunks ~= n then
        error('the diff does not match its changes (' .. path_of(ch.uri) .. ')', 0)
      end
      local first = seen[ch.uri] or 0
      seen[ch.uri] = first + n
      local file_items = {}
      for k, h in ipairs(s.hunks) do
        table.insert(r.items, { uri = ch.uri, index = first + k - 1, line = offset + h.line, header = h.header })
        table.insert(file_items, #r.items)
        mark(offset + h.line, offset + h.last, #r.items)
      end
      -- The ---/+++ lines stand for all the file's hunks.
      for l = offset + s.line, offset + s.line + 1 do
        r.line_items[l] = file_items
      end
    end
  end
  if next_section <= #sections then
    error('the diff has more files than its changes', 0)
  end
  return r
end

local function counts(r)
  local a, rej, undecided = 0, 0, 0
  for _, it in ipairs(r.items) do
    if it.accept == true then
      a = a + 1
    elseif it.accept == false then
      rej = rej + 1
    else
      undecided = undecided + 1
    end
  end
  return a, rej, undecided
end

--- The answer: hunks left undecided are rejected (only what the user
--- accepted is applied); everything accepted is a plain accept.
function M.answer(r)
  local all = true
  local hunks = {}
  for _, it in ipairs(r.items) do
    all = all and it.accept == true
    if it.index and it.accept == true then
      table.insert(hunks, { uri = it.uri, index = it.index, accept = true })
    end
  end
  local out = { decision = all and 'accept' or 'reject' }
  if not all and #hunks > 0 then
    out.hunks = hunks
  end
  local comment = vim.trim(r.comment or '')
  if comment ~= '' then
    out.comment = comment
  end
  return out
end

--- The text of the review window's winbar (statusline on 0.7).
function M.bar_text(r)
  local a, rej, undecided = counts(r)
  local text = string.format('agent-ls review: %d accepted, %d rejected, %d undecided', a, rej, undecided)
  if vim.trim(r.comment or '') ~= '' then
    text = text .. ' · commented'
  end
  return text .. ' │ ' .. M.keys_help
end

local marks = {
  [true] = { '✓ accept', 'DiffAdd' },
  [false] = { '✗ reject', 'DiffDelete' },
}

local function redraw(r)
  if not vim.api.nvim_buf_is_valid(r.buf) then
    return
  end
  vim.api.nvim_buf_clear_namespace(r.buf, ns, 0, -1)
  for _, it in ipairs(r.items) do
    local m = marks[it.accept] or { '· undecided', 'Comment' }
    vim.api.nvim_buf_set_extmark(r.buf, ns, it.line - 1, 0, { virt_text = { { '  ' .. m[1], m[2] } }, virt_text_pos = 'eol' })
  end
  local text = M.bar_text(r):gsub('%%', '%%%%')
  for _, win in ipairs(vim.fn.win_findbuf(r.buf)) do
    if has_winbar then
      vim.wo[win].winbar = text
    else
      vim.wo[win].statusline = text
    end
  end
end

-- The item lines, in order.
local function item_lines(r)
  local out = {}
  for _, it in ipairs(r.items) do
    table.insert(out, it.line)
  end
  table.sort(out)
  return out
end

local function cursor_line(r)
  local win = vim.fn.win_findbuf(r.buf)[1]
  return win and vim.api.nvim_win_get_cursor(win)[1], win
end

--- Moves the cursor to the next (dir 1) or previous (dir -1) hunk.
function M.jump(r, dir)
  local line, win = cursor_line(r)
  if not line then
    return
  end
  local lines = item_lines(r)
  local target
  if dir > 0 then
    for _, l in ipairs(lines) do
      if l > line then
        target = l
        break
      end
    end
  else
    for i = #lines, 1, -1 do
      if lines[i] < line then
        target = lines[i]
        break
      end
    end
  end
  if target then
    vim.api.nvim_win_set_cursor(win, { target, 0 })
  end
end

--- Decides the hunk under the cursor (all of a file's hunks on its
--- ---/+++ lines), then moves to the next hunk.
function M.decide(r, accept)
  local line = cursor_line(r)
  local items = line and r.line_items[line]
  if not items then
    vim.notify('agent-ls: no hunk under the cursor', vim.log.levels.INFO)
    return
  end
  for _, i in ipairs(items) do
    r.items[i].accept = accept
  end
  redraw(r)
  M.jump(r, 1)
end

function M.decide_all(r, accept)
  for _, it in ipairs(r.items) do
    it.accept = accept
  end
  redraw(r)
end

function M.comment(r)
  vim.ui.input({ prompt = 'Comment to the agent: ', default = r.comment }, function(text)
    if text ~= nil and not r.done then
      r.comment = text
      redraw(r)
    end
  end)
end

-- close takes the review's buffer away and gives the cursor back.
local function close(r)
  local buf = r.buf
  if not (buf and vim.api.nvim_buf_is_valid(buf)) or r.wiping then
    return
  end
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if #vim.api.nvim_list_wins() > 1 then
      pcall(vim.api.nvim_win_close, win, true)
    else
      pcall(vim.api.nvim_win_set_buf, win, vim.api.nvim_create_buf(true, false))
    end
  end
  pcall(vim.api.nvim_buf_delete, buf, { force = true })
  if r.from and vim.api.nvim_win_is_valid(r.from) then
    pcall(vim.api.nvim_set_current_win, r.from)
  end
end

--- Ends the review with answer (the whole review rejected when nil).
function M.finish(r, answer)
  if r.done then
    return
  end
  r.done = true
  r.answer = answer or { decision = 'reject' }
  for i, o in ipairs(open) do
    if o == r then
      table.remove(open, i)
      break
    end
  end
  close(r)
  if r.co then
    vim.schedule(function()
      coroutine.resume(r.co)
    end)
  end
end

function M.submit(r)
  M.finish(r, M.answer(r))
end

function M.reject_all(r)
  M.decide_all(r, false)
  M.finish(r, M.answer(r))
end

local function map(r, lhs, f, desc)
  vim.keymap.set('n', lhs, function()
    f(r)
  end, { buffer = r.buf, nowait = true, silent = true, desc = 'agent-ls review: ' .. desc })
end

-- show opens the review's buffer in a split below and moves there.
local function show(r)
  count = count + 1
  local buf = vim.api.nvim_create_buf(false, true)
  r.buf = buf
  -- The diff is the repository's and the model's text: shown with its
  -- control and bidi characters escaped (one line stays one line).
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, visible.lines(r.lines))
  pcall(vim.api.nvim_buf_set_name, buf, 'agent-ls://review/' .. count .. '/' .. one_line(r.call_id or ''))
  -- :w applies the review, as <CR> does.
  vim.bo[buf].buftype = 'acwrite'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'diff'
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  map(r, 'a', function(x) M.decide(x, true) end, 'accept the hunk')
  map(r, 'r', function(x) M.decide(x, false) end, 'reject the hunk')
  map(r, 'A', function(x) M.decide_all(x, true) end, 'accept all')
  map(r, 'R', function(x) M.decide_all(x, false) end, 'reject all')
  map(r, 'c', M.comment, 'comment')
  map(r, '<CR>', M.submit, 'apply the accepted hunks')
  map(r, 'q', M.reject_all, 'reject everything')
  map(r, ']c', function(x) M.jump(x, 1) end, 'next hunk')
  map(r, '[c', function(x) M.jump(x, -1) end, 'previous hunk')
  local group = vim.api.nvim_create_augroup('agent-ls.review.' .. buf, { clear = true })
  vim.api.nvim_create_autocmd('BufWriteCmd', {
    group = group,
    buffer = buf,
    callback = function()
      vim.bo[buf].modified = false
      vim.schedule(function()
        M.submit(r)
      end)
    end,
  })
  -- A review whose buffer goes away (:q, :bwipe) is rejected: nothing is
  -- left waiting out of sight.
  vim.api.nvim_create_autocmd('BufWipeout', {
    group = group,
    buffer = buf,
    once = true,
    callback = function()
      r.wiping = true
      pcall(vim.api.nvim_del_augroup_by_id, group)
      vim.schedule(function()
        M.finish(r, { decision = 'reject' })
      end)
    end,
  })
  r.from = vim.api.nvim_get_current_win()
  vim.cmd('botright split')
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.api.nvim_win_set_height(win, math.max(5, math.min(#r.lines + 1, math.floor(vim.o.lines / 2))))
  vim.wo[win].foldenable = false
  vim.wo[win].wrap = false
  local first = item_lines(r)[1]
  if first then
    vim.api.nvim_win_set_cursor(win, { first, 0 })
  end
  redraw(r)
  vim.cmd('redraw')
end

-- Keys that take one more key in the modal review (g g, ] c, f x, ...).
local prefixes = { g = true, z = true, ['['] = true, [']'] = true, ["'"] = true, ['`'] = true, f = true, F = true, t = true, T = true, ['\23'] = true }

-- normal runs Normal-mode keys in the review's window.
local function normal(r, keys)
  local win = vim.fn.win_findbuf(r.buf)[1]
  if win then
    vim.api.nvim_win_call(win, function()
      pcall(vim.cmd, 'normal! ' .. keys)
    end)
  end
end

local actions = {
  a = function(r) M.decide(r, true) end,
  r = function(r) M.decide(r, false) end,
  A = function(r) M.decide_all(r, true) end,
  R = function(r) M.decide_all(r, false) end,
  c = function(r) M.comment(r) end,
  ['\r'] = function(r) M.submit(r) end,
  q = function(r) M.reject_all(r) end,
  [':'] = function()
    local cmd = vim.fn.input({ prompt = ':', completion = 'command', cancelreturn = '' })
    if cmd ~= '' then
      local ok, err = pcall(vim.cmd, cmd)
      if not ok then
        vim.notify(tostring(err), vim.log.levels.ERROR)
      end
    end
  end,
}
for _, k in ipairs({ '/', '?' }) do
  actions[k] = function(r)
    local pat = vim.fn.input({ prompt = k, cancelreturn = '' })
    local win = vim.fn.win_findbuf(r.buf)[1]
    if pat ~= '' and win then
      vim.api.nvim_win_call(win, function()
        pcall(vim.fn.search, pat, k == '?' and 'bw' or 'w')
      end)
    end
  end
end

-- modal runs the review on Neovim 0.7 and 0.8: it reads the keys itself
-- while Neovim's loop runs (so the turn's end still closes it): the
-- review's keys, movement keys with counts, / and ? searches, and :
-- commands (:w applies, :q rejects everything, :AgentStop interrupts).
local function modal(r)
  local count_keys, prefix = '', nil
  while not r.done do
    vim.wait(1000, function()
      return r.done or vim.fn.getchar(1) ~= 0
    end, 20)
    local c = not r.done and vim.fn.getchar(0) or 0
    if c ~= 0 then
      local key = type(c) == 'number' and vim.fn.nr2char(c) or c
      if prefix then
        local seq = prefix .. key
        if seq == ']c' then
          M.jump(r, 1)
        elseif seq == '[c' then
          M.jump(r, -1)
        else
          normal(r, count_keys .. seq)
        end
        prefix, count_keys = nil, ''
      elseif key:match('^[1-9]$') or (count_keys ~= '' and key == '0') then
        count_keys = count_keys .. key
      elseif prefixes[key] then
        prefix = key
      elseif actions[key] then
        actions[key](r)
        count_keys = ''
      elseif key == '\27' then
        count_keys = ''
      else
        normal(r, count_keys .. key)
        count_keys = ''
      end
      if not r.done then
        redraw(r)
        vim.cmd('redraw')
      end
    end
  end
end

--- Handler of agent/requestReview: answers { decision, hunks?, comment? }.
function M.request_review(_, params, ctx)
  local ok, r = pcall(new_review, params, ctx and ctx.client_id)
  if not ok then
    vim.notify('agent-ls: malformed review request rejected: ' .. visible.text(r), vim.log.levels.WARN)
    return { decision = 'reject' }
  end
  local shown, err = pcall(show, r)
  if not shown then
    vim.notify('agent-ls: the review could not be shown: ' .. visible.text(err), vim.log.levels.WARN)
    M.finish(r)
    return { decision = 'reject' }
  end
  table.insert(open, r)
  local co, main = coroutine.running()
  if co ~= nil and not main then
    if not r.done then
      r.co = co
      coroutine.yield()
    end
  else
    modal(r)
  end
  return r.answer
end

--- The reviews waiting for the user.
function M.reviews()
  return vim.list_extend({}, open)
end

--- The client whose review buf shows, if it is one.
function M.client_of(buf)
  for _, r in ipairs(open) do
    if r.buf == buf then
      return r.client_id
    end
  end
end

--- The turn sessionId/turnId of client_id ended (an interrupt cancels
--- the review request, and the turn's end follows): its reviews close.
function M.turn_ended(client_id, session_id, turn_id)
  for _, r in ipairs(M.reviews()) do
    if r.client_id == client_id and r.turn_id == turn_id and (r.session_id == nil or r.session_id == session_id) then
      M.finish(r)
    end
  end
end

--- client_id stopped: its reviews close.
function M.client_exited(client_id)
  for _, r in ipairs(M.reviews()) do
    if r.client_id == client_id then
      M.finish(r)
    end
  end
end

return M
