-- :checkhealth agent-ls. The checks are the binary's own (version,
-- config --check, config, sandbox --explain); this file runs them and
-- reports what they say. Neovim 0.7 reports through require('health'),
-- 0.8 and 0.9 through vim.health.report_*, 0.10 and later through
-- vim.health.start/ok/warn/error/info.
local M = {}

local function reporter()
  local h = vim.health
  if h and h.start then
    return { start = h.start, ok = h.ok, warn = h.warn, error = h.error, info = h.info }
  end
  h = h or require('health')
  return { start = h.report_start, ok = h.report_ok, warn = h.report_warn, error = h.report_error, info = h.report_info }
end

-- run runs argv and returns its exit code and output lines.
local function run(argv)
  local out = vim.fn.systemlist(argv)
  return vim.v.shell_error, out
end

local function options()
  local ok, agent = pcall(require, 'agent-ls')
  if ok and agent.options then
    return agent.options, true
  end
  return require('agent-ls.config').resolve({}), false
end

-- flags are the settings setup() was given, as the binary's flags.
local function flags(o)
  local f = {}
  if o.profile then
    vim.list_extend(f, { '--profile', o.profile })
  end
  if o.model then
    vim.list_extend(f, { '--model', o.model })
  end
  if o.approval_policy then
    vim.list_extend(f, { '--approval-policy', o.approval_policy })
  end
  if o.sandbox_mode then
    vim.list_extend(f, { '--sandbox', o.sandbox_mode })
  end
  return f
end

local function with(cmd, ...)
  local argv = vim.deepcopy(cmd)
  for _, part in ipairs({ ... }) do
    vim.list_extend(argv, part)
  end
  return argv
end

function M.check()
  local r = reporter()
  local o, configured = options()

  r.start('Neovim')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.7') == 0 then
    r.error('Neovim ' .. version .. ' is too old: agent-ls needs 0.7 or later')
  elseif vim.fn.has('nvim-0.10') == 0 then
    r.ok('Neovim ' .. version .. ' (supported; approvals need a picker that does not wait for keys in a window of its own, such as the stock vim.ui.select)')
  else
    r.ok('Neovim ' .. version)
  end
  if configured then
    r.ok('require("agent-ls").setup() has run')
  else
    r.warn('require("agent-ls").setup() has not run: no commands and no server', { 'Call require("agent-ls").setup({}) in your init.lua' })
  end

  r.start('agent-ls binary')
  local exe = vim.fn.exepath(o.cmd[1])
  if exe == '' then
    r.error(o.cmd[1] .. ' is not found', { 'Install it with `make install` and put its folder on PATH, or set cmd = { "/path/to/agent-ls" }' })
    return
  end
  local code, out = run(with({ exe }, { 'version' }))
  if code ~= 0 then
    r.error(exe .. ' version failed: ' .. table.concat(out, ' '))
    return
  end
  r.ok(exe .. ': ' .. table.concat(out, ' '))

  r.start('agent-ls configuration')
  local cwd = vim.fn.getcwd()
  code, out = run(with({ exe }, { 'config', '--check', '--cd', cwd }, flags(o)))
  if code == 0 then
    r.ok(table.concat(out, ' '))
  else
    r.error('the configuration has errors', out)
  end
  code, out = run(with({ exe }, { 'config', '--cd', cwd }, flags(o)))
  local provider
  for _, line in ipairs(out) do
    provider = provider or line:match("^model_provider = '([^']+)'")
  end
  for _, line in ipairs(out) do
    local key = line:match('^# (the API key .*)$')
    if key then
      if key:find('NOT set', 1, true) then
        r.warn(key, { 'Export the variable where Neovim starts (agent-ls inherits its environment)' })
      else
        r.ok(key)
      end
    elseif line:match('^model = ') or line:match('^model_provider = ')
      or (provider and vim.startswith(line, 'model_providers.' .. provider .. '.base_url = ')) then
      r.info((line:gsub('%s+#', '  #')))
    end
  end

  r.start('agent-ls sandbox')
  code, out = run(with({ exe }, { 'sandbox', '--explain' }))
  if code ~= 0 then
    r.warn('agent-ls sandbox --explain failed: every command will need approval', out)
    return
  end
  local text = table.concat(out, '\n')
  local landlock = text:match('landlock: ([^\n]*)')
  if landlock and landlock:match('^ABI') then
    r.ok('Landlock ' .. landlock)
  else
    r.warn('Landlock: ' .. (landlock or 'not reported'))
  end
  local seccomp = text:match('seccomp: ([^\n]*)')
  if seccomp and seccomp:match('^available') then
    r.ok('seccomp available')
  else
    r.warn('seccomp: ' .. (seccomp or 'not reported'))
  end
  if text:find('PID namespace of its own', 1, true) or text:find('private mount namespace', 1, true) then
    r.ok('user namespaces available (protected folders, a private /dev/shm, a PID namespace per command)')
  else
    r.warn('user namespaces unavailable: .git and .agent-ls are not protected inside the workspace, commands run under a subreaper')
  end
end

return M
