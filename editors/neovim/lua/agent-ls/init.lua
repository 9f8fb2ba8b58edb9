-- agent-ls for Neovim: commands, the conversation window, approvals
-- through vim.ui.select, edits written back to disk, :checkhealth. See
-- :help agent-ls.
local config = require('agent-ls.config')
local client = require('agent-ls.client')
local conversation = require('agent-ls.conversation')
local visible = require('agent-ls.visible')

local M = {}

M.options = nil

-- notify tells the user msg, which may quote the server, the model or
-- the repository (errors, file names): escaped.
local function notify(msg, level)
  vim.notify('agent-ls: ' .. visible.text(msg), level or vim.log.levels.INFO)
end
M.notify = notify

local function error_text(err)
  if type(err) == 'table' then
    return err.message or vim.inspect(err)
  end
  return tostring(err)
end
M.error_text = error_text

-- current returns the client and conversation for the current buffer,
-- starting the server when there is none.
local function current()
  local c, conv = client.for_buffer(vim.api.nvim_get_current_buf(), true)
  if not c and client.no_workspace(vim.api.nvim_get_current_buf()) then
    notify('no workspace here: the home folder is not one (:cd into a project folder)', vim.log.levels.ERROR)
  elseif not c then
    notify('no agent-ls server could be started (is ' .. M.options.cmd[1] .. ' installed? :checkhealth agent-ls)', vim.log.levels.ERROR)
  end
  return c, conv
end
M.current = current

--- For 'statusline': the context the current buffer's conversation fills
--- and the provider's rate limits left ("" when nothing is known yet).
--- Starts no server.
function M.statusline()
  -- A statusline must not fail at every redraw (before setup()).
  local ok, _, conv = pcall(client.for_buffer, vim.api.nvim_get_current_buf(), false)
  return ok and conv and conv:status_text() or ''
end

-- utf16_len is the length of line in UTF-16 code units (LSP positions).
local function utf16_len(line)
  local ok, _, n = pcall(vim.str_utfindex, line)
  if ok and n then
    return n
  end
  return #line
end

local severity_names = { 'error', 'warning', 'info', 'hint' }

-- selection_context is the context of lines first..last of buf: the
-- range, and the diagnostics on those lines as text for the prompt (the
-- server reads a context item's text and range, not its diagnostics).
local function selection_context(buf, first, last)
  local last_line = vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1] or ''
  local ctx = {
    uri = vim.uri_from_bufnr(buf),
    range = {
      start = { line = first - 1, character = 0 },
      ['end'] = { line = last - 1, character = utf16_len(last_line) },
    },
  }
  local notes = {}
  if vim.diagnostic then
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.lnum >= first - 1 and d.lnum <= last - 1 then
        table.insert(notes, string.format('- line %d: %s: %s%s', d.lnum + 1, severity_names[d.severity] or 'note',
          d.message:gsub('\n', ' '), d.source and (' (' .. d.source .. ')') or ''))
      end
    end
  end
  return ctx, notes
end

--- Starts a turn with prompt in the conversation of the current buffer;
--- range is { buf, first, last } (1-based lines) or nil.
function M.ask(prompt, range)
  local c, conv = current()
  if not c then
    return
  end
  local args = {}
  args.prompt, args.images = require('agent-ls.images').take(prompt)
  if range then
    local ctx, notes = selection_context(range[1], range[2], range[3])
    args.context = { ctx }
    if #notes > 0 then
      args.prompt = args.prompt .. '\n\nDiagnostics in the selection:\n' .. table.concat(notes, '\n')
    end
  end
  -- The files, folders and diagnostics the prompt @-mentions.
  local mentioned = require('agent-ls.mention').context(prompt, c.config.root_dir or vim.fn.getcwd())
  if #mentioned > 0 then
    args.context = vim.list_extend(args.context or {}, mentioned)
  end
  conv:show()
  M.with_session(c, conv, function()
    args.sessionId = conv.session_id
    client.command(c, 'agent.startTurn', { args }, function(err, result)
      if err then
        notify(error_text(err), vim.log.levels.ERROR)
        return
      end
      if type(result) ~= 'table' then
        return
      end
      conv.session_id = result.sessionId or conv.session_id
      if result.queued then
        -- The turn runs after those before it: the running turn stays
        -- the one :AgentStop stops.
        notify(string.format('queued (%d waiting)', conv:queued_count(result.turnId)))
      else
        conv.turn_id = result.turnId or conv.turn_id
      end
    end)
  end)
end

--- Calls f once the conversation has a session: a first question starts
--- a new one (made the current one, so code actions continue it);
--- :AgentSessions brings back an earlier one.
function M.with_session(c, conv, f)
  if conv.session_id then
    f()
    return
  end
  client.request(c, 'agent/newSession', vim.empty_dict(), function(err, result)
    if err then
      notify(error_text(err), vim.log.levels.ERROR)
      return
    end
    conv.session_id = result and result.sessionId
    conv.model = result and result.model or conv.model
    conv.mode = result and result.mode or conv.mode
    conv:update_bar()
    f()
  end)
end

local function ask_command(opts)
  local range
  -- Lines of a file go as context; those of other buffers (the
  -- conversation, a scratch buffer) have nothing the server can read.
  if opts.range and opts.range > 0 and vim.bo.buftype == '' and vim.api.nvim_buf_get_name(0) ~= '' then
    range = { vim.api.nvim_get_current_buf(), opts.line1, opts.line2 }
  end
  local prompt = opts.args
  if prompt and prompt ~= '' then
    M.ask(prompt, range)
    return
  end
  -- @ completes files and folders (Tab).
  vim.ui.input({ prompt = 'Ask agent-ls: ', completion = require('agent-ls.mention').input_completion }, function(input)
    if input and input:match('%S') then
      M.ask(input, range)
    end
  end)
end

--- Starts a new conversation (the server's current one for this root).
function M.new()
  local c, conv = current()
  if not c then
    return
  end
  client.command(c, 'agent.newSession', nil, function(err, result)
    if err then
      notify(error_text(err), vim.log.levels.ERROR)
      return
    end
    conv:reset()
    conv.session_id = result and result.sessionId
    conv.model = result and result.model or conv.model
    conv.mode = result and result.mode
    conv:update_bar()
    notify('new conversation')
  end)
end

--- Interrupts the running turn(s) of the current root.
function M.stop()
  local c, conv = current()
  if not c then
    return
  end
  local function done(err)
    if err then
      notify(error_text(err), vim.log.levels.ERROR)
    end
  end
  if conv.session_id and conv.running then
    client.request(c, 'agent/interrupt', { sessionId = conv.session_id, turnId = conv.turn_id }, done)
  else
    client.command(c, 'agent.interrupt', nil, done)
  end
end

--- Lists the kept sessions and resumes the one picked.
function M.sessions()
  local c, conv = current()
  if not c then
    return
  end
  client.request(c, 'agent/listSessions', vim.empty_dict(), function(err, result)
    if err then
      notify(error_text(err), vim.log.levels.ERROR)
      return
    end
    local sessions = result and result.sessions or {}
    if #sessions == 0 then
      notify('no kept sessions')
      return
    end
    vim.ui.select(sessions, {
      prompt = 'Resume a session',
      kind = 'agent-ls.session',
      format_item = function(s)
        local title = (s.title ~= nil and s.title ~= '') and s.title or s.sessionId
        return string.format('%s  (%s, %d turns)', visible.line(title), (s.updatedAt or ''):gsub('T', ' '):gsub('%..*$', ''), s.turns or 0)
      end,
    }, function(s)
      if not s then
        return
      end
      client.request(c, 'agent/resumeSession', { sessionId = s.sessionId }, function(rerr, res)
        if rerr then
          notify(error_text(rerr), vim.log.levels.ERROR)
          return
        end
        conv:replay(res)
        conv:show()
      end)
    end)
  end)
end

--- Restores the files the last turn that changed files had changed.
function M.undo()
  local c, conv = current()
  if not c then
    return
  end
  local turn = table.remove(conv.changed_turns)
  if not turn then
    notify('no turn of this conversation changed files')
    return
  end
  client.request(c, 'agent/undoTurn', turn, function(err, result)
    if err then
      table.insert(conv.changed_turns, turn)
      notify('undo: ' .. error_text(err), vim.log.levels.ERROR)
      return
    end
    local files = {}
    for _, f in ipairs(result and result.files or {}) do
      table.insert(files, vim.fn.fnamemodify(vim.uri_to_fname(f), ':~:.'))
    end
    if conv.session_id == turn.sessionId then -- still the conversation shown
      conv:put({ '_Undid turn ' .. turn.turnId .. ': ' .. table.concat(files, ', ') .. '._' })
    end
    notify('restored ' .. table.concat(files, ', '))
  end)
end

--- Rewinds the conversation and its files to before turn n (the session's
--- n-th turn, 1-based, or a turn id; nil: the last turn): agent/rewind.
--- Conflicts (the user's edits overlap the agent's) are listed and left as
--- they are. With prompt, a new turn starts with it once the rewind is
--- done (:AgentEdit).
function M.rewind(n, prompt)
  local c, conv = current()
  if not c then
    return
  end
  if not conv.session_id then
    notify('no conversation to rewind')
    return
  end
  local params = { sessionId = conv.session_id, prompt = prompt }
  if n then
    params.turnId = tostring(n)
  end
  client.request(c, 'agent/rewind', params, function(err, result)
    if err then
      notify('rewind: ' .. error_text(err), vim.log.levels.ERROR)
      return
    end
    local rewound = {}
    for _, t in ipairs(result.rewound or {}) do
      rewound[t] = true
    end
    local kept = {}
    for _, t in ipairs(conv.changed_turns) do
      if not rewound[t.turnId] then
        table.insert(kept, t)
      end
    end
    conv.changed_turns = kept
    local name = function(u)
      return vim.fn.fnamemodify(vim.uri_to_fname(u), ':~:.')
    end
    local lines = { '_Rewound ' .. #(result.rewound or {}) .. ' turn(s): the model no longer sees them._' }
    local files = {}
    for _, f in ipairs(result.files or {}) do
      table.insert(files, name(f))
    end
    if #files > 0 then
      table.insert(lines, '_Restored: ' .. table.concat(files, ', ') .. '._')
    end
    for _, cf in ipairs(result.conflicts or {}) do
      table.insert(lines, '_Conflict, left as it is: ' .. name(cf.uri) .. ' (' .. cf.reason .. ')._')
    end
    for _, nr in ipairs(result.notRestored or {}) do
      table.insert(lines, '_Not restored: ' .. name(nr.uri) .. ' (' .. nr.reason .. ')._')
    end
    if conv.session_id == params.sessionId then
      conv:put(lines)
    end
    local level = #(result.conflicts or {}) > 0 and vim.log.levels.WARN or vim.log.levels.INFO
    notify((table.concat(lines, '\n'):gsub('_', '')), level)
  end)
end

--- Edits the prompt of turn n (the session's n-th turn; nil: the last
--- one) and sends it in the turn's place: the conversation and the files
--- go back to before that turn first (M.rewind with the edited prompt).
function M.edit(n)
  local c, conv = current()
  if not c then
    return
  end
  if not conv.session_id or not conv.turn_id then
    notify('no prompt to edit in this conversation')
    return
  end
  local id = n and (conv.session_id .. '-t' .. n) or conv.turn_id
  local old = (conv.prompts or {})[id] or ''
  vim.ui.input({ prompt = 'Edit prompt (sent in place of turn ' .. (n or 'the last') .. '): ', default = old }, function(text)
    if not text or vim.trim(text) == '' then
      return
    end
    M.rewind(id, text)
  end)
end

--- Shows or hides the conversation window.
function M.toggle()
  local _, conv = current()
  if conv then
    conv:toggle()
  end
end

--- Opens Neovim's LSP log, where agent-ls's stderr and log messages go.
function M.log()
  local log = vim.lsp.log and vim.lsp.log.get_filename and vim.lsp.log.get_filename() or vim.lsp.get_log_path()
  vim.cmd('botright split ' .. vim.fn.fnameescape(log))
  vim.bo.readonly = true
  vim.cmd('normal! G')
end

--- Runs the server's code actions: on the last visual selection when
--- selection is true (the visual-mode mapping), else at the cursor.
function M.code_action(selection)
  if not selection then
    vim.lsp.buf.code_action()
    return
  end
  local s, e = vim.api.nvim_buf_get_mark(0, '<'), vim.api.nvim_buf_get_mark(0, '>')
  local last = vim.api.nvim_buf_get_lines(0, e[1] - 1, e[1], false)[1] or ''
  if vim.fn.visualmode() == 'V' then
    s[2] = 0
    e[2] = #last
  end
  -- The end is the selection's last byte, inside the line.
  e[2] = math.max(0, math.min(e[2], #last - 1))
  if vim.fn.has('nvim-0.8') == 1 then
    vim.lsp.buf.code_action({ range = { start = s, ['end'] = e } })
  else
    -- 0.7's code_action() sends only the cursor.
    vim.lsp.buf.range_code_action(nil, s, e)
  end
end

local function commands()
  local cmd = vim.api.nvim_create_user_command
  cmd('AgentAsk', ask_command, {
    nargs = '*',
    range = true,
    desc = 'agent-ls: ask (with a range: about those lines)',
    complete = function(arglead, cmdline)
      return require('agent-ls.mention').complete(arglead, cmdline)
    end,
  })
  cmd('AgentImage', function(opts)
    require('agent-ls.images').command(opts, M.options, notify)
  end, { nargs = '?', complete = 'file', desc = 'agent-ls: attach an image (a file, or the clipboard) to the next prompt' })
  cmd('AgentNew', M.new, { desc = 'agent-ls: start a new conversation' })
  cmd('AgentStop', M.stop, { desc = 'agent-ls: interrupt the running turn' })
  cmd('AgentSessions', M.sessions, { desc = 'agent-ls: resume a kept session' })
  cmd('AgentUndo', M.undo, { desc = "agent-ls: undo the last turn's file changes" })
  -- A command on the last turn, or on turn N (its optional argument).
  local function on_turn(name, f)
    return function(o)
      local n = nil
      if o.args ~= '' then
        n = tonumber(o.args)
        if not n or n < 1 then
          notify(name .. ' takes a turn number (1 is the first turn)', vim.log.levels.ERROR)
          return
        end
      end
      f(n)
    end
  end
  cmd('AgentRewind', on_turn('AgentRewind', M.rewind), { nargs = '?', desc = 'agent-ls: take the conversation and the files back to before the last turn, or turn N' })
  cmd('AgentEdit', on_turn('AgentEdit', M.edit), { nargs = '?', desc = "agent-ls: edit the last turn's prompt, or turn N's, and send it in its place" })
  cmd('AgentLog', M.log, { desc = "agent-ls: open the LSP log" })
  cmd('AgentToggle', M.toggle, { desc = 'agent-ls: show or hide the conversation' })
  local queue = require('agent-ls.queue')
  cmd('AgentSteer', queue.steer_command, { nargs = '*', desc = 'agent-ls: tell the running turn' })
  cmd('AgentQueue', queue.list, { desc = 'agent-ls: the queued prompts: send now, edit, remove' })
  cmd('AgentResume', queue.resume, { desc = 'agent-ls: let a paused queue go on' })
  local plan = require('agent-ls.plan')
  cmd('AgentPlan', plan.command, { nargs = '*', bang = true, desc = 'agent-ls: plan mode (with !: back to the default mode)' })
  cmd('AgentApprovePlan', plan.approve, { desc = 'agent-ls: carry out the plan' })
  local terminals = require('agent-ls.terminals')
  cmd('AgentTerminals', terminals.command, { nargs = '?', desc = "agent-ls: the agent's terminals" })
  cmd('AgentKillTerminal', terminals.kill_command, { nargs = '?', desc = 'agent-ls: kill a terminal of the agent' })
  cmd('AgentStopTerminals', terminals.stop_all, { desc = "agent-ls: kill all the agent's terminals" })
end

-- Commands the server's code actions carry that the plugin runs itself.
local function lsp_commands()
  vim.lsp.commands['agent.showConversation'] = function()
    local _, conv = current()
    if conv then
      conv:show()
    end
  end
  vim.lsp.commands['agent.newSession'] = function()
    M.new()
  end
end

local function keymaps(k)
  local map = vim.keymap.set
  if k.ask then
    map('n', k.ask, '<Cmd>AgentAsk<CR>', { desc = 'agent-ls: ask' })
    map('x', k.ask, ':AgentAsk<CR>', { desc = 'agent-ls: ask about the selection' })
  end
  if k.code_action then
    map('n', k.code_action, M.code_action, { desc = 'agent-ls: code actions' })
    map('x', k.code_action, ":<C-u>lua require('agent-ls').code_action(true)<CR>", { silent = true, desc = 'agent-ls: code actions on the selection' })
  end
  if k.toggle then
    map('n', k.toggle, M.toggle, { desc = 'agent-ls: show or hide the conversation' })
  end
  if k.stop then
    map('n', k.stop, M.stop, { desc = 'agent-ls: stop the turn' })
  end
  if k.new then
    map('n', k.new, M.new, { desc = 'agent-ls: new conversation' })
  end
end

--- setup({ cmd, model, profile, approval_policy, sandbox_mode, keymaps,
--- root_markers, write_agent_edits, ... }): see :help agent-ls-setup.
function M.setup(opts)
  if vim.fn.has('nvim-0.7') == 0 then
    vim.notify('agent-ls needs Neovim 0.7 or later', vim.log.levels.ERROR)
    return
  end
  local o = config.resolve(opts)
  M.options = o
  client.setup(o)
  conversation.setup(o)
  require('agent-ls.attention').setup(o)
  require('agent-ls.edits').setup(o)
  commands()
  lsp_commands()
  keymaps(o.keymaps)
  local group = vim.api.nvim_create_augroup('agent-ls', { clear = true })
  if o.auto_attach then
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
      group = group,
      callback = function(args)
        -- After the other BufRead handlers have set the buffer up.
        vim.schedule(function()
          if vim.api.nvim_buf_is_valid(args.buf) then
            client.attach(args.buf)
          end
        end)
      end,
    })
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) then
        client.attach(buf)
      end
    end
  end
end

return M
