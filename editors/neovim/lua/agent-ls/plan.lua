-- Plan mode (protocol section 2.2: agent/setMode, agent/approvePlan):
-- the session investigates read-only and ends with a plan; approving it
-- switches the session back to the default mode and starts the turn that
-- carries it out. The mode shown follows the modeChanged events.
local client = require('agent-ls.client')

local M = {}

local function agent()
  return require('agent-ls')
end

--- Switches the current conversation to mode ('plan' or 'default'), then
--- calls after().
function M.set_mode(mode, after)
  local c, conv = agent().current()
  if not c then
    return
  end
  agent().with_session(c, conv, function()
    client.request(c, 'agent/setMode', { sessionId = conv.session_id, mode = mode }, function(err)
      if err then
        agent().notify(agent().error_text(err), vim.log.levels.ERROR)
        return
      end
      conv.mode = mode
      conv:update_bar()
      if after then
        after()
      else
        agent().notify(mode == 'plan' and 'plan mode: the agent reads and plans, and changes nothing' or 'default mode')
      end
    end)
  end)
end

--- :AgentPlan [prompt] switches to plan mode and asks prompt, if given;
--- :AgentPlan! switches back to the default mode.
function M.command(opts)
  if opts.bang then
    M.set_mode('default')
    return
  end
  local prompt = opts.args
  if prompt and prompt:match('%S') then
    M.set_mode('plan', function()
      agent().ask(prompt)
    end)
  else
    M.set_mode('plan')
  end
end

--- Approves the plan: the session leaves plan mode and a turn carries
--- the plan out.
function M.approve()
  local c, conv = agent().current()
  if not c then
    return
  end
  if not conv.session_id then
    agent().notify('no plan to approve: :AgentPlan asks for one')
    return
  end
  conv:show()
  client.request(c, 'agent/approvePlan', { sessionId = conv.session_id }, function(err, result)
    if err then
      agent().notify(agent().error_text(err), vim.log.levels.ERROR)
      return
    end
    if type(result) ~= 'table' then
      return
    end
    if result.queued then
      -- The session stays in plan mode until that turn starts.
      agent().notify(string.format('plan approved: it is carried out after the running turn (queued, %d waiting)', conv:queued_count(result.turnId)))
    elseif result.turnId then
      conv.turn_id = result.turnId
    end
  end)
end

return M
