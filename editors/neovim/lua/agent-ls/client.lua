-- One agent-ls per workspace root: starting it (vim.lsp.start where it
-- exists, start_client and buf_attach_client before), the handlers of
-- what it sends, and requests to it.
local approval = require('agent-ls.approval')
local attention = require('agent-ls.attention')
local conversation = require('agent-ls.conversation')
local edits = require('agent-ls.edits')
local language = require('agent-ls.language')
local questions = require('agent-ls.questions')
local review = require('agent-ls.review')
local protocol = require('agent-ls.protocol')
local terminals = require('agent-ls.terminals')
local config = require('agent-ls.config')
local visible = require('agent-ls.visible')

local M = {}

local options
local roots = {} -- root folder -> client id

local has_start = vim.lsp.start ~= nil
local uv = vim.uv or vim.loop

-- Client methods are called with ':' from 0.11 on (with '.' before).
local method_calls = vim.fn.has('nvim-0.11') == 1
local function call(client, name, ...)
  if method_calls then
    return client[name](client, ...)
  end
  return client[name](...)
end
M.call = call

function M.setup(opts)
  options = opts
end

--- The root of path: the nearest folder at or above it holding one of
--- the root markers; nil when there is none.
function M.find_root(path)
  if not path or path == '' then
    return nil
  end
  local dir = vim.fn.fnamemodify(path, ':p')
  if vim.fn.isdirectory(dir) == 0 then
    dir = vim.fn.fnamemodify(dir, ':h')
  end
  -- A folder is named without its trailing slash (:p adds one), as the
  -- folder of a file is: one name, one server.
  if #dir > 1 then
    dir = dir:gsub('/+$', '')
  end
  while dir and dir ~= '' do
    for _, marker in ipairs(options.root_markers) do
      if uv.fs_stat(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return nil
end

--- Whether dir is the home folder or one of the folders above it, which
--- hold the user's whole configuration: never a workspace by default.
function M.is_home(dir)
  local home = uv.os_homedir() or vim.env.HOME
  if not dir or dir == '' or not home or home == '' then
    return false
  end
  dir = uv.fs_realpath(dir) or dir
  home = uv.fs_realpath(home) or home
  dir = dir:gsub('/+$', '')
  return dir == '' or home == dir or home:sub(1, #dir + 1) == dir .. '/'
end

-- told_home: the user was told once why a file in no project got no
-- server.
local told_home = false

--- The workspace for a file in no project (no root marker above it):
--- the current directory, unless that is the home folder (`nvim
--- ~/notes.txt` run in ~), then the file's own folder, unless that is
--- the home folder too; then none, and the user is told why once.
local function fallback_root(file)
  for _, dir in ipairs({ vim.fn.getcwd(), file and vim.fn.fnamemodify(file, ':p:h') }) do
    if dir and not M.is_home(dir) then
      return dir
    end
  end
  if not told_home then
    told_home = true
    vim.notify(
      'agent-ls: not started here: '
        .. (file and vim.fn.fnamemodify(file, ':~') .. ' is in no project' or 'no project is open')
        .. ' and the current folder is your home folder, which agent-ls does not take as its workspace'
        .. ' (its commands could change your shell start-up files and settings). :cd into a project folder,'
        .. ' or open a file in one.',
      vim.log.levels.WARN
    )
  end
  return nil
end

--- Whether buf has no workspace because the only one left would be the
--- home folder (see fallback_root).
function M.no_workspace(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  local file = name ~= '' and vim.bo[buf].buftype == '' and name or nil
  if (file and M.find_root(file)) or (not file and M.find_root(vim.fn.getcwd())) then
    return false
  end
  return M.is_home(vim.fn.getcwd()) and (not file or M.is_home(vim.fn.fnamemodify(file, ':p:h')))
end

local function root_of_buffer(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  if name == '' or vim.bo[buf].buftype ~= '' then
    return nil
  end
  return M.find_root(name) or fallback_root(name)
end

-- progress wraps Neovim's $/progress handler (which keeps the messages
-- for statusline plugins such as fidget.nvim) and says each step with
-- vim.notify (which nvim-notify and others replace).
local function progress(err, result, ctx, cfg)
  local stock = vim.lsp.handlers['$/progress']
  local ret
  if stock then
    ret = stock(err, result, ctx, cfg)
  end
  local v = result and result.value
  if options.notify_progress and type(v) == 'table' then
    local text
    if v.kind == 'begin' then
      text = (v.title or 'Agent') .. (v.message and (': ' .. v.message) or '')
    elseif v.message then
      text = 'Agent: ' .. v.message
    end
    if text then
      vim.notify(visible.line(text), vim.log.levels.INFO, { title = 'agent-ls' })
    end
  end
  return ret
end

local function on_event(_, params, ctx)
  if type(params) ~= 'table' or type(params.type) ~= 'string' then
    return
  end
  -- Terminals belong to the session, not to what the conversation
  -- shows.
  local tok, is_terminal = pcall(terminals.on_event, ctx.client_id, params)
  if not tok or is_terminal then
    return
  end
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local conv = conversation.get(ctx.client_id, client and client.config.root_dir)
  if params.type == 'turnStarted' and options.conversation.open_on_turn then
    conv:show()
  end
  -- An event the conversation cannot draw (a field of the wrong type)
  -- is left out, once said, rather than raising in Neovim's loop.
  local ok, err = pcall(conv.on_event, conv, params)
  if not ok and not conv.warned then
    conv.warned = true
    vim.notify('agent-ls: an event could not be shown: ' .. visible.text(err), vim.log.levels.WARN)
  end
  -- An interrupted turn's review request is cancelled: its end closes
  -- the review.
  if params.type == 'turnCompleted' then
    review.turn_ended(ctx.client_id, params.sessionId, params.turnId)
    questions.turn_ended(ctx.client_id, params.sessionId, params.turnId)
    attention.turn_done(ctx.client_id, params.status)
  end
end

-- waiting wraps the handler of a request that waits on the user: the
-- user is told first when they look elsewhere.
local function waiting(what, handler)
  return function(err, params, ctx)
    attention.waiting(ctx and ctx.client_id, what)
    return handler(err, params, ctx)
  end
end

local function handlers()
  return {
    ['agent/event'] = on_event,
    ['agent/requestApproval'] = waiting('approval', approval.request_approval),
    ['agent/requestReview'] = waiting('review', review.request_review),
    ['agent/askUser'] = waiting('question', questions.ask_user),
    ['agent/languageQuery'] = language.query,
    ['window/showMessageRequest'] = approval.show_message_request,
    ['workspace/applyEdit'] = edits.apply_edit,
    ['$/progress'] = progress,
  }
end

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.experimental = caps.experimental or {}
  caps.experimental.agent = { events = true, approvals = true, review = options.review, questions = true, language = true }
  return caps
end

local function client_config(root)
  return {
    name = 'agent-ls',
    cmd = options.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = config.init_options(options),
    capabilities = capabilities(),
    handlers = handlers(),
    on_init = function(client, result)
      local notice = protocol.notice(result and result.capabilities and result.capabilities.experimental,
        result and result.serverInfo and result.serverInfo.version)
      if notice then
        vim.schedule(function()
          vim.notify(notice, vim.log.levels.WARN)
        end)
      end
      local conv = conversation.get(client.id, root)
      if result and result.serverInfo and result.serverInfo.version then
        conv.server_version = result.serverInfo.version
      end
      conv.model = options.model
      conv:update_bar()
    end,
    on_exit = function(_, _, client_id)
      vim.schedule(function()
        review.client_exited(client_id)
        terminals.client_exited(client_id)
        conversation.detach(client_id)
      end)
      for r, id in pairs(roots) do
        if id == client_id then
          roots[r] = nil
        end
      end
    end,
  }
end

-- startable says whether cmd can run; when it cannot, it says so once
-- instead of an error at every file opened.
local told_missing = false
local function startable()
  if vim.fn.executable(options.cmd[1]) == 1 then
    return true
  end
  if not told_missing then
    told_missing = true
    vim.notify('agent-ls: ' .. options.cmd[1] .. ' is not found (see :checkhealth agent-ls)', vim.log.levels.WARN)
  end
  return false
end

local function alive(id)
  local c = id and vim.lsp.get_client_by_id(id)
  return c and not call(c, 'is_stopped') and c or nil
end

--- Attaches buf to the server of its root, starting it if needed.
function M.attach(buf)
  local root = root_of_buffer(buf)
  if not root or not startable() then
    return nil
  end
  local id = roots[root]
  if has_start then
    id = vim.lsp.start(client_config(root), {
      bufnr = buf,
      reuse_client = function(c, conf)
        return c.name == 'agent-ls' and c.config.root_dir == conf.root_dir
      end,
    })
  else
    if not alive(id) then
      id = vim.lsp.start_client(client_config(root))
    end
    if id then
      vim.lsp.buf_attach_client(buf, id)
    end
  end
  roots[root] = id
  return id
end

--- The client for the current context: the conversation or review
--- shown in buf, else the root of buf's file, else the current directory
--- (never the home folder: see fallback_root); started when
--- start is set and there is none.
function M.for_buffer(buf, start)
  local conv = conversation.of_buffer(buf)
  if conv and alive(conv.client_id) then
    return alive(conv.client_id), conv
  end
  local terminal_client = alive((terminals.of_buffer(buf)))
  if terminal_client then
    return terminal_client, conversation.get(terminal_client.id, terminal_client.config.root_dir)
  end
  local reviewing = alive(review.client_of(buf))
  if reviewing then
    return reviewing, conversation.get(reviewing.id, reviewing.config.root_dir)
  end
  local root = root_of_buffer(buf)
  if root then
    if not alive(roots[root]) and start then
      M.attach(buf)
    end
  elseif vim.api.nvim_buf_get_name(buf) ~= '' and vim.bo[buf].buftype == '' then
    -- A file in no project, in the home folder: no workspace (told).
    return nil
  else
    root = M.find_root(vim.fn.getcwd()) or fallback_root(nil)
    if not root then
      return nil
    end
    if not alive(roots[root]) and start and startable() then
      local cfg = client_config(root)
      if vim.fn.has('nvim-0.11') == 1 then
        roots[root] = vim.lsp.start(cfg, { attach = false })
      else
        roots[root] = vim.lsp.start_client(cfg)
      end
    end
  end
  local client = alive(roots[root])
  if not client then
    return nil
  end
  return client, conversation.get(client.id, root)
end

--- Every running agent-ls client.
function M.clients()
  local out = {}
  for _, id in pairs(roots) do
    local c = alive(id)
    if c then
      table.insert(out, c)
    end
  end
  return out
end

--- Waits (running Neovim's loop) until client has initialized.
function M.ready(client)
  if client.initialized then
    return true
  end
  return vim.wait(10000, function()
    return client.initialized or call(client, 'is_stopped')
  end, 10) and client.initialized
end

--- Sends a request and calls cb(err, result) when it is answered.
function M.request(client, method, params, cb)
  local function send()
    local ok = call(client, 'request', method, params, function(err, result)
      cb(err, result)
    end)
    if not ok then
      cb({ message = 'agent-ls is not running' }, nil)
    end
  end
  if client.initialized then
    send()
  else
    vim.schedule(function()
      if M.ready(client) then
        send()
      else
        cb({ message = 'agent-ls did not start' }, nil)
      end
    end)
  end
end

--- workspace/executeCommand.
function M.command(client, command, args, cb)
  M.request(client, 'workspace/executeCommand', { command = command, arguments = args }, cb)
end

return M
