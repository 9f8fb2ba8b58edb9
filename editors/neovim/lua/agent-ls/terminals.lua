-- The command sessions the agent starts with exec_command (protocol
-- section 3.1): kept per client from the terminalStarted, terminalOutput
-- and terminalExited events, listed by :AgentTerminals, and shown in a
-- terminal buffer (nvim_open_term, no process of Neovim's own) fed by the
-- events. What the user types in terminal mode goes to the session with
-- agent/writeTerminal; the pty echoes it back as output.
local visible = require('agent-ls.visible')

local M = {}

-- What a terminal keeps to draw when its buffer is opened late: its last
-- output, at most this many bytes.
local keep_bytes = 256 * 1024

local by_client = {} -- client id -> key(sessionId, terminalId) -> terminal

-- key names a terminal among a client's: terminal ids start again in
-- every session, so a new conversation's 1000 is another terminal.
local function key(session_id, id)
  return tostring(session_id or '') .. '|' .. id
end

local function terminals_of(client_id)
  local t = by_client[client_id]
  if not t then
    t = {}
    by_client[client_id] = t
  end
  return t
end

-- command_line is what a terminal is called by: the model's command line
-- (the last word of `<shell> -lc <cmd>`), on one line.
local function command_line(command)
  if type(command) == 'table' then
    command = command[#command]
  end
  return visible.line(tostring(command or '?'))
end

-- pty_text is output as a terminal shows it: a session without a pty
-- writes bare line feeds, which a terminal takes as "down one line".
local function pty_text(term, data)
  if term.tty then
    return data
  end
  return (data:gsub('\r?\n', '\r\n'))
end

local function keep(term, data)
  table.insert(term.output, data)
  term.size = term.size + #data
  while term.size > keep_bytes and #term.output > 1 do
    term.size = term.size - #table.remove(term.output, 1)
  end
end

local function buffer_name(term)
  local name = 'agent-ls://terminal/' .. term.id .. ' ' .. term.title
  if not term.running then
    name = name .. ' [exited ' .. tostring(term.exit_code or '?') .. ']'
  end
  return name
end

local function has_buffer(term)
  return term.buf and vim.api.nvim_buf_is_valid(term.buf) and term.chan
end

-- send writes data into the terminal's buffer.
local function send(term, data)
  if has_buffer(term) then
    pcall(vim.api.nvim_chan_send, term.chan, data)
  end
end

local function mark_exited(term)
  if not has_buffer(term) then
    return
  end
  send(term, '\r\n[agent-ls: exited with code ' .. tostring(term.exit_code or '?') .. ']\r\n')
  pcall(vim.api.nvim_buf_set_name, term.buf, buffer_name(term))
end

--- Takes in a terminal event of client id; true when ev was one.
function M.on_event(client_id, ev)
  local t = ev.type
  if t ~= 'terminalStarted' and t ~= 'terminalOutput' and t ~= 'terminalExited' then
    return false
  end
  local id = tostring(ev.terminalId)
  local terms = terminals_of(client_id)
  local k = key(ev.sessionId, id)
  local term = terms[k]
  if t == 'terminalStarted' or not term then
    term = term or { id = id, output = {}, size = 0, running = true }
    term.session_id = ev.sessionId or term.session_id
    term.title = command_line(ev.command or term.title)
    term.cwd = ev.cwd or term.cwd
    if ev.tty ~= nil then
      term.tty = ev.tty == true
    end
    terms[k] = term
  end
  if t == 'terminalOutput' and type(ev.data) == 'string' then
    local data = pty_text(term, ev.data)
    keep(term, data)
    send(term, data)
  elseif t == 'terminalExited' then
    term.running = false
    term.exit_code = ev.exitCode
    mark_exited(term)
  end
  return true
end

--- Takes in the server's list (agent/listTerminals) for session.
function M.merge_list(client_id, session_id, list)
  local terms = terminals_of(client_id)
  for _, it in ipairs(type(list) == 'table' and list or {}) do
    local id = tostring(it.terminalId)
    local k = key(session_id, id)
    local term = terms[k] or { id = id, output = {}, size = 0 }
    term.session_id = session_id
    term.title = command_line(it.command)
    term.cwd = it.cwd or term.cwd
    if it.tty ~= nil then
      term.tty = it.tty == true
    end
    local was_running = term.running
    term.running = it.running == true
    term.exit_code = it.exitCode or term.exit_code
    terms[k] = term
    if was_running and not term.running then
      mark_exited(term)
    end
  end
end

--- The terminals of session (all of client id's when nil), oldest first.
function M.list(client_id, session_id)
  local out = {}
  for _, term in pairs(terminals_of(client_id)) do
    if not session_id or term.session_id == nil or term.session_id == session_id then
      table.insert(out, term)
    end
  end
  table.sort(out, function(a, b)
    local na, nb = tonumber(a.id), tonumber(b.id)
    if na and nb then
      return na < nb
    end
    return a.id < b.id
  end)
  return out
end

--- The terminal id of buf, if it shows one.
function M.of_buffer(buf)
  for client_id, terms in pairs(by_client) do
    for _, term in pairs(terms) do
      if term.buf == buf then
        return client_id, term
      end
    end
  end
end

--- One line about term, for the picker.
function M.describe(term)
  local state = term.running and 'running' or ('exited ' .. tostring(term.exit_code or '?'))
  return string.format('%s  %s  (%s)', term.id, term.title, state)
end

-- input_for turns keys typed in terminal mode into what the session
-- reads: a pty takes them raw; a pipe reads lines, so Enter is a line
-- feed, and the keys are echoed since no terminal echoes them.
local function input_for(term, data)
  if term.tty then
    return data
  end
  local text = data:gsub('\r', '\n')
  send(term, (text:gsub('\n', '\r\n')))
  return text
end

--- Shows term in a terminal buffer (made on first use, and fed the
--- output kept so far) in a split; write(term, data) is called with what
--- the user types.
function M.open(term, write)
  if not has_buffer(term) then
    local buf = vim.api.nvim_create_buf(false, true)
    term.buf = buf
    term.chan = vim.api.nvim_open_term(buf, {
      on_input = function(_, _, _, data)
        if not term.running then
          return
        end
        local text = input_for(term, data)
        -- Outside the textlock on_input runs under.
        vim.schedule(function()
          write(term, text)
        end)
      end,
    })
    pcall(vim.api.nvim_buf_set_name, buf, buffer_name(term))
    vim.bo[buf].bufhidden = 'hide'
    for _, chunk in ipairs(term.output) do
      send(term, chunk)
    end
    if not term.running then
      mark_exited(term)
    end
  end
  local wins = vim.fn.win_findbuf(term.buf)
  if #wins > 0 then
    vim.api.nvim_set_current_win(wins[1])
  else
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, term.buf)
  end
  return term.buf
end

local function agent()
  return require('agent-ls')
end

local function request(c, method, params, cb)
  require('agent-ls.client').request(c, method, params, function(err, result)
    if err then
      agent().notify(agent().error_text(err), vim.log.levels.ERROR)
      return
    end
    if cb then
      cb(result)
    end
  end)
end

-- writer sends what the user types to the session of the terminal.
-- A refusal is said once per terminal, not once per key.
-- Keys go in order: one request at a time per terminal (the server may
-- handle requests side by side), those typed meanwhile sent together
-- with the next.
local function writer(c)
  local function flush(term)
    local data = term.unsent
    term.unsent, term.writing = '', true
    local params = { sessionId = term.session_id, terminalId = term.id, data = data }
    require('agent-ls.client').request(c, 'agent/writeTerminal', params, function(err)
      if err and not term.write_failed then
        term.write_failed = true
        agent().notify('typing into terminal ' .. term.id .. ': ' .. agent().error_text(err), vim.log.levels.ERROR)
      elseif not err then
        term.write_failed = nil
      end
      term.writing = false
      if term.unsent ~= '' then
        flush(term)
      end
    end)
  end
  return function(term, data)
    term.unsent = (term.unsent or '') .. data
    if not term.writing then
      flush(term)
    end
  end
end

-- with_terminals calls f(c, conv, terminals) with the current
-- conversation's terminals: the server's list where it answers
-- agent/listTerminals, merged into those the events told of.
local function with_terminals(f)
  local c, conv = agent().current()
  if not c then
    return
  end
  local function done()
    f(c, conv, M.list(c.id, conv.session_id))
  end
  if not conv.session_id then
    done()
    return
  end
  require('agent-ls.client').request(c, 'agent/listTerminals', { sessionId = conv.session_id }, function(err, result)
    if not err and type(result) == 'table' then
      M.merge_list(c.id, conv.session_id, result.terminals)
    end
    done()
  end)
end

-- pick asks for one of terms (or takes the one whose id is given).
local function pick(terms, id, prompt, f)
  if id and id ~= '' then
    for _, term in ipairs(terms) do
      if term.id == id then
        f(term)
        return
      end
    end
    agent().notify('no terminal ' .. id, vim.log.levels.ERROR)
    return
  end
  if #terms == 0 then
    agent().notify('the agent has started no terminal in this conversation')
    return
  end
  vim.ui.select(terms, { prompt = prompt, kind = 'agent-ls.terminal', format_item = M.describe }, function(term)
    if term then
      f(term)
    end
  end)
end

--- :AgentTerminals [id]: the conversation's terminals; the one picked
--- opens.
function M.command(opts)
  with_terminals(function(c, _, terms)
    pick(terms, opts.args, 'Terminals of the agent', function(term)
      M.open(term, writer(c))
    end)
  end)
end

--- :AgentKillTerminal [id]: kills the terminal shown in the current
--- buffer, the one named, or one picked.
function M.kill_command(opts)
  local _, shown = M.of_buffer(vim.api.nvim_get_current_buf())
  local id = opts.args
  if (not id or id == '') and shown then
    id = shown.id
  end
  with_terminals(function(c, _, terms)
    local running = {}
    for _, term in ipairs(terms) do
      if term.running or term.id == id then
        table.insert(running, term)
      end
    end
    pick(running, id, 'Kill a terminal', function(term)
      request(c, 'agent/killTerminal', { sessionId = term.session_id, terminalId = term.id })
    end)
  end)
end

--- :AgentStopTerminals: kills every terminal the agent started.
function M.stop_all()
  local c = agent().current()
  if not c then
    return
  end
  require('agent-ls.client').command(c, 'agent.stopTerminals', nil, function(err)
    if err then
      agent().notify(agent().error_text(err), vim.log.levels.ERROR)
    end
  end)
end

--- Forgets the terminals of a client that stopped; their buffers stay,
--- marked.
function M.client_exited(client_id)
  for _, term in pairs(by_client[client_id] or {}) do
    if term.running then
      term.running = false
      if has_buffer(term) then
        send(term, '\r\n[agent-ls stopped]\r\n')
      end
    end
  end
  by_client[client_id] = nil
end

return M
