-- Questions the model asks the user (protocol: agent/askUser, declared
-- by experimental.agent.questions): each question in vim.ui.select, its
-- options and "Other", which asks for free text with vim.ui.input. The
-- end of the question's turn (an interrupt) withdraws it.
local ui = require('agent-ls.ui')
local visible = require('agent-ls.visible')

local M = {}

local pending = {} -- open questions: { client_id, session_id, turn_id, withdraw }

local other = { label = 'Other', other = true }

local function format_option(o)
  local text = visible.line(tostring(o.label))
  if not o.other and type(o.description) == 'string' and o.description ~= '' then
    text = text .. ' — ' .. visible.line(o.description)
  end
  if o.other then
    text = text .. ' (type an answer)'
  end
  return text
end

-- ask_one asks question q; returns its answer, or nil when dismissed or
-- withdrawn.
local function ask_one(q, entry)
  local items = {}
  for _, o in ipairs(type(q.options) == 'table' and q.options or {}) do
    if type(o) == 'table' and o.label ~= nil then
      table.insert(items, o)
    end
  end
  table.insert(items, other)
  local title = visible.line(tostring(q.question or ''))
  if type(q.header) == 'string' and q.header ~= '' then
    title = visible.line(q.header) .. ': ' .. title
  end
  local choice = ui.select(items, { prompt = title, kind = 'agent-ls.question', format_item = format_option }, entry.withdraw)
  if not choice or entry.withdrawn then
    return nil
  end
  if not choice.other then
    return { id = q.id, label = choice.label }
  end
  local text = ui.input({ prompt = title .. ' ' }, entry.withdraw)
  if not text or entry.withdrawn or not text:match('%S') then
    return nil
  end
  return { id = q.id, text = text }
end

--- Handler of agent/askUser: answers { answers = [{ id, label? , text? }] },
--- one per question answered. Dismissing a question ends the asking:
--- the questions after it go unanswered too.
function M.ask_user(_, params, ctx)
  params = type(params) == 'table' and params or {}
  local entry = { client_id = ctx and ctx.client_id, session_id = params.sessionId, turn_id = params.turnId, withdraw = {} }
  entry.withdraw.cancel = function() end
  table.insert(pending, entry)
  local answers = {}
  local ok, err = pcall(function()
    for _, q in ipairs(type(params.questions) == 'table' and params.questions or {}) do
      if type(q) == 'table' then
        local a = ask_one(q, entry)
        if not a then
          break
        end
        table.insert(answers, a)
      end
    end
  end)
  for i, e in ipairs(pending) do
    if e == entry then
      table.remove(pending, i)
      break
    end
  end
  if not ok then
    vim.notify('agent-ls: the question could not be asked: ' .. visible.text(err), vim.log.levels.WARN)
  end
  if entry.withdrawn then
    return { answers = {} }
  end
  return { answers = answers }
end

--- The turn of session ended: its open question is withdrawn.
function M.turn_ended(client_id, session_id, turn_id)
  for _, e in ipairs(pending) do
    if e.client_id == client_id and e.session_id == session_id and (turn_id == nil or e.turn_id == turn_id) and not e.withdrawn then
      e.withdrawn = true
      vim.notify('agent-ls: the question was withdrawn (its turn ended)', vim.log.levels.INFO)
      e.withdraw.cancel()
    end
  end
end

return M
