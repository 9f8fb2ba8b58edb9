-- The version of agent-ls's protocol this plugin speaks, and the one line
-- that tells the user when the server's differs (initialize answers
-- experimental.agent = { version, minor }; docs/protocol.md).
local M = {}

--- The protocol this plugin supports: major version and minor.
M.supported = { version = 1, minor = 1 }

--- The notice for the user when the server speaks another protocol than
--- the plugin supports, or nil when they fit: the same major version and
--- at least our minor (a newer minor only adds). A server that names no
--- minor is older than 1.1.
function M.notice(experimental, server_version)
  local agent = type(experimental) == 'table' and experimental.agent or nil
  local major = type(agent) == 'table' and type(agent.version) == 'number' and agent.version or 0
  local minor = type(agent) == 'table' and type(agent.minor) == 'number' and agent.minor or 0
  local want = M.supported
  if major == want.version and minor >= want.minor then
    return nil
  end
  local server = 'agent-ls' .. (server_version and (' ' .. server_version) or '')
  if major > want.version then
    return string.format('%s speaks protocol %d.%d, newer than the %d.x this plugin supports: update the agent-ls plugin',
      server, major, minor, want.version)
  end
  return string.format('%s speaks protocol %d.%d, older than the %d.%d this plugin needs: update agent-ls (make install)',
    server, major, minor, want.version, want.minor)
end

return M
