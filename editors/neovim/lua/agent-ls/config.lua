-- The plugin's options: defaults, merged with what setup() is given, and
-- checked so that a wrong value is a clear message rather than a failure
-- somewhere later.
local M = {}

M.defaults = {
  -- How to start the server, as vim.lsp takes it.
  cmd = { 'agent-ls' },
  -- Sent as initializationOptions (nil: the server's own configuration).
  model = nil,
  profile = nil,
  approval_policy = nil, -- untrusted | on-failure | on-request | never
  sandbox_mode = nil, -- read-only | workspace-write | danger-full-access
  network = nil, -- off | ask | on: narrows what agent-ls's config says, never widens
  -- One server per workspace root: the nearest folder above a buffer's
  -- file that holds one of these (else the current directory, or, when
  -- that is the home folder, the file's own folder; never the home
  -- folder itself).
  root_markers = { '.git', 'go.mod', 'package.json', 'Cargo.toml', 'pyproject.toml', 'setup.py', '.agent-ls' },
  -- Write a buffer the agent changed when it had no unsaved changes
  -- before, so the commands the agent runs next see the change.
  write_agent_edits = true,
  -- Review each change hunk by hunk before it is applied (declares
  -- experimental.agent.review; see :help agent-ls-review).
  review = false,
  -- :AgentImage without a path runs this command (a list) and attaches
  -- the image it prints, such as { 'wl-paste', '--type', 'image/png' } or
  -- { 'xclip', '-selection', 'clipboard', '-t', 'image/png', '-o' }.
  image_paste_cmd = nil,
  -- Start a server for every file buffer that is opened.
  auto_attach = true,
  -- The conversation window.
  conversation = {
    layout = 'vsplit', -- vsplit | split | float
    size = 80, -- columns for vsplit, lines for split
    open_on_turn = true, -- show it when a turn starts
    fold_lines = 12, -- command output and diffs longer than this are folded
  },
  -- $/progress as vim.notify messages.
  notify_progress = true,
  -- When a turn ends or waits on you (approval, question, review) and
  -- the current window is not the conversation's: vim.notify, and the
  -- terminal bell when the UI is a terminal.
  attention = {
    notify = true,
    bell = false,
  },
  -- Mappings (false, or a key set to false, leaves it out).
  keymaps = {
    ask = '<leader>aa', -- normal and visual: :AgentAsk
    code_action = '<leader>ac', -- normal and visual: the server's code actions
    toggle = '<leader>at',
    stop = '<leader>as',
    new = '<leader>an',
  },
}

local enums = {
  approval_policy = { 'untrusted', 'on-failure', 'on-request', 'never' },
  sandbox_mode = { 'read-only', 'workspace-write', 'danger-full-access' },
  network = { 'off', 'ask', 'on' },
  ['conversation.layout'] = { 'vsplit', 'split', 'float' },
}

local function check_enum(name, value)
  if value == nil then
    return
  end
  if not vim.tbl_contains(enums[name], value) then
    error(string.format('agent-ls: %s must be one of %s, not %s', name, table.concat(enums[name], ', '), vim.inspect(value)), 0)
  end
end

local function check_type(name, value, want, optional)
  if value == nil and optional then
    return
  end
  if type(value) ~= want then
    error(string.format('agent-ls: %s must be a %s, not %s', name, want, vim.inspect(value)), 0)
  end
end

--- Merges opts over the defaults and checks the result.
function M.resolve(opts)
  opts = opts or {}
  check_type('setup() options', opts, 'table')
  local c = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts)
  -- Lists replace, they do not merge by index.
  for _, k in ipairs({ 'cmd', 'root_markers' }) do
    if opts[k] ~= nil then
      c[k] = opts[k]
    end
  end
  if opts.keymaps == false then
    c.keymaps = {}
  end
  check_type('cmd', c.cmd, 'table')
  if #c.cmd == 0 or type(c.cmd[1]) ~= 'string' then
    error('agent-ls: cmd must be a list such as { "agent-ls" }', 0)
  end
  check_type('model', c.model, 'string', true)
  check_type('profile', c.profile, 'string', true)
  check_enum('approval_policy', c.approval_policy)
  check_enum('sandbox_mode', c.sandbox_mode)
  check_enum('network', c.network)
  check_type('root_markers', c.root_markers, 'table')
  check_type('write_agent_edits', c.write_agent_edits, 'boolean')
  check_type('review', c.review, 'boolean')
  check_type('auto_attach', c.auto_attach, 'boolean')
  check_type('image_paste_cmd', c.image_paste_cmd, 'table', true)
  check_type('notify_progress', c.notify_progress, 'boolean')
  check_type('attention', c.attention, 'table')
  check_type('attention.notify', c.attention.notify, 'boolean')
  check_type('attention.bell', c.attention.bell, 'boolean')
  check_type('conversation', c.conversation, 'table')
  check_enum('conversation.layout', c.conversation.layout)
  check_type('conversation.size', c.conversation.size, 'number')
  check_type('conversation.fold_lines', c.conversation.fold_lines, 'number')
  check_type('keymaps', c.keymaps, 'table')
  return c
end

--- The server's initializationOptions (protocol section 1). The plugin
--- writes the buffers itself (write_agent_edits), so the server never
--- writes behind a buffer.
function M.init_options(c)
  return {
    model = c.model,
    profile = c.profile,
    approvalPolicy = c.approval_policy,
    sandboxMode = c.sandbox_mode,
    network = c.network,
    saveAgentEdits = false,
  }
end

return M
