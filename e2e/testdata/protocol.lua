-- Checks the plugin's protocol notice (agent-ls.protocol) without a
-- server: run with the plugin on the runtimepath; quits 0 when every
-- check holds, 1 with the failures written to stderr otherwise.
local protocol = require('agent-ls.protocol')
local failures = {}
local function check(name, got, want)
  if got ~= want then
    table.insert(failures, string.format('%s: got %s, want %s', name, vim.inspect(got), vim.inspect(want)))
  end
end

check('same', protocol.notice({ agent = { version = 1, minor = 1 } }, '1.0.0'), nil)
check('newer minor', protocol.notice({ agent = { version = 1, minor = 3 } }), nil)
check('older', protocol.notice({ agent = { version = 1 } }, 'v0.9'),
  'agent-ls v0.9 speaks protocol 1.0, older than the 1.1 this plugin needs: update agent-ls (make install)')
check('none', protocol.notice(nil), 'agent-ls speaks protocol 0.0, older than the 1.1 this plugin needs: update agent-ls (make install)')
check('newer', protocol.notice({ agent = { version = 2, minor = 0 } }, '3.0.0'),
  'agent-ls 3.0.0 speaks protocol 2.0, newer than the 1.x this plugin supports: update the agent-ls plugin')

if #failures > 0 then
  io.stderr:write(table.concat(failures, '\n') .. '\n')
  vim.cmd('cquit 1')
end
vim.cmd('qall!')
