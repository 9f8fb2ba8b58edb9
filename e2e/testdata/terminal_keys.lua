-- The plugin keeps the agent's terminals per session: terminal ids start
-- again at 1000 in every session, so a new conversation's 1000 is
-- another terminal than the old one's, and the old one stays as it
-- ended. Run by TestNeovimPluginTerminalsPerSession with the plugin on
-- the runtimepath; prints TERMINALS OK or the failures.
local terminals = require('agent-ls.terminals')
local failures = {}
local function eq(what, got, want)
  if got ~= want then
    table.insert(failures, string.format('%s: got %q, want %q', what, tostring(got), tostring(want)))
  end
end

terminals.on_event(1, { type = 'terminalStarted', sessionId = 's1', terminalId = '1000', command = { 'bash', '-lc', 'first' } })
terminals.on_event(1, { type = 'terminalOutput', sessionId = 's1', terminalId = '1000', data = 'one\n' })
terminals.on_event(1, { type = 'terminalExited', sessionId = 's1', terminalId = '1000', exitCode = 3 })
terminals.on_event(1, { type = 'terminalStarted', sessionId = 's2', terminalId = '1000', command = { 'bash', '-lc', 'second' } })
terminals.on_event(1, { type = 'terminalOutput', sessionId = 's2', terminalId = '1000', data = 'two\n' })

local old, new = terminals.list(1, 's1'), terminals.list(1, 's2')
eq('terminals of s1', #old, 1)
eq('terminals of s2', #new, 1)
if #old == 1 and #new == 1 then
  eq('s1 title', old[1].title, 'first')
  eq('s1 running', old[1].running, false)
  eq('s1 exit code', old[1].exit_code, 3)
  eq('s1 output', table.concat(old[1].output), 'one\r\n')
  eq('s2 title', new[1].title, 'second')
  eq('s2 running', new[1].running, true)
  eq('s2 output', table.concat(new[1].output), 'two\r\n')
  eq('s2 session', new[1].session_id, 's2')
end

-- The server's listing of s1 leaves s2's terminal as it is.
terminals.merge_list(1, 's1', { { terminalId = '1000', command = { 'bash', '-lc', 'first' }, running = false, exitCode = 3 } })
new = terminals.list(1, 's2')
eq('s2 after the listing of s1', #new == 1 and new[1].title .. ' ' .. tostring(new[1].running), 'second true')

if #failures == 0 then
  io.stderr:write('TERMINALS OK\n')
else
  io.stderr:write('TERMINALS FAIL\n' .. table.concat(failures, '\n') .. '\n')
end
vim.cmd('qa!')
