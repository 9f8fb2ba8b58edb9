-- Talking to the agent while it works (protocol section 2.1): messages
-- steered into the running turn, and the queue of prompts that wait for
-- it to end (:AgentAsk queues while a turn runs), listed, edited,
-- removed, sent now and resumed.
local client = require('agent-ls.client')
local visible = require('agent-ls.visible')

local M = {}

local function agent()
  return require('agent-ls')
end

local function failed(err)
  if err then
    agent().notify(agent().error_text(err), vim.log.levels.ERROR)
    return true
  end
  return false
end

--- Sends prompt into the running turn of the current conversation (or
--- starts a turn with it when none runs).
function M.steer(prompt)
  local c, conv = agent().current()
  if not c then
    return
  end
  conv:show()
  agent().with_session(c, conv, function()
    client.request(c, 'agent/steer', { sessionId = conv.session_id, prompt = prompt }, function(err, result)
      if failed(err) then
        return
      end
      if type(result) == 'table' and result.started then
        conv.turn_id = result.turnId or conv.turn_id
        agent().notify('no turn was running: started one')
      end
    end)
  end)
end

function M.steer_command(opts)
  if opts.args and opts.args:match('%S') then
    M.steer(opts.args)
    return
  end
  vim.ui.input({ prompt = 'Tell agent-ls while it works: ' }, function(input)
    if input and input:match('%S') then
      M.steer(input)
    end
  end)
end

local function first_line(s)
  local line = vim.split(s or '', '\n', { plain = true })[1] or ''
  return visible.line(line)
end

-- act asks what to do with a waiting prompt, and does it.
local function act(c, conv, item)
  local actions = { 'Send now', 'Edit', 'Remove' }
  vim.ui.select(actions, { prompt = 'Queued: ' .. first_line(item.prompt), kind = 'agent-ls.queued' }, function(action)
    local ids = { sessionId = conv.session_id, turnId = item.turnId }
    if action == 'Send now' then
      client.request(c, 'agent/steer', ids, function(err, result)
        if not failed(err) and type(result) == 'table' and result.started then
          conv.turn_id = result.turnId or conv.turn_id
        end
      end)
    elseif action == 'Remove' then
      client.request(c, 'agent/removeQueued', ids, failed)
    elseif action == 'Edit' then
      vim.ui.input({ prompt = 'Queued prompt: ', default = item.prompt }, function(input)
        if input and input:match('%S') then
          ids.prompt = input
          client.request(c, 'agent/updateQueued', ids, failed)
        end
      end)
    end
  end)
end

--- Lists the prompts waiting in the current conversation's queue; the
--- one picked can be sent now, edited or removed.
function M.list()
  local c, conv = agent().current()
  if not c then
    return
  end
  local items = conv.queue.items
  if #items == 0 or not conv.session_id then
    agent().notify('no prompt waits')
    return
  end
  local prompt = string.format('%d queued prompt(s)%s', #items, conv.queue.paused and ', paused (:AgentResume)' or '')
  vim.ui.select(vim.deepcopy(items), {
    prompt = prompt,
    kind = 'agent-ls.queue',
    format_item = function(it)
      if it.mode == 'default' then
        return first_line(it.prompt) .. ' (the approved plan)'
      end
      return first_line(it.prompt)
    end,
  }, function(item)
    if item then
      act(c, conv, item)
    end
  end)
end

--- Lets a paused queue go on.
function M.resume()
  local c, conv = agent().current()
  if not c then
    return
  end
  if not conv.session_id then
    agent().notify('no prompt waits')
    return
  end
  client.request(c, 'agent/resumeQueue', { sessionId = conv.session_id }, function(err, result)
    if not failed(err) and type(result) == 'table' and result.turnId and result.turnId ~= '' then
      conv.turn_id = result.turnId
    end
  end)
end

return M
