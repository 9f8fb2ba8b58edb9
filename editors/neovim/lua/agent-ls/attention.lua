-- Telling the user that the agent is done or waits on them (a turn
-- ended; an approval, a question or a review is asked) when they are
-- not looking at the conversation: vim.notify, and the terminal bell
-- when set up so and the UI is a terminal. The texts are fixed, never
-- the model's.
local conversation = require('agent-ls.conversation')

local M = {}

local options -- set by setup

function M.setup(opts)
  options = opts.attention
end

-- looking: the current window shows the conversation of client id.
local function looking(client_id)
  local conv = conversation.find(client_id)
  if not conv then
    return false
  end
  local current = vim.api.nvim_get_current_win()
  for _, win in ipairs(conv:windows()) do
    if win == current then
      return true
    end
  end
  return false
end

-- terminal_ui: the (first) UI attached is a terminal. Neovim 0.10 and
-- later say so (stdout_tty); before, the built-in TUI is the UI without
-- a channel.
local function terminal_ui()
  local ui = vim.api.nvim_list_uis()[1]
  if not ui then
    return false
  end
  if ui.stdout_tty ~= nil then
    return ui.stdout_tty == true
  end
  return (ui.chan or 0) == 0
end

local function bell()
  local tty = io.open('/dev/tty', 'w')
  if tty then
    tty:write('\7')
    tty:close()
  end
end

local function tell(client_id, text)
  if not options or looking(client_id) then
    return
  end
  if options.notify then
    vim.notify(text, vim.log.levels.INFO, { title = 'agent-ls' })
  end
  if options.bell and terminal_ui() then
    pcall(bell)
  end
end

--- A turn of client id ended with status.
function M.turn_done(client_id, status)
  local text = 'agent-ls: turn done'
  if status == 'interrupted' or status == 'failed' then
    text = 'agent-ls: turn ' .. status
  end
  tell(client_id, text)
end

--- Client id waits on the user for what ('approval', 'question',
--- 'review').
function M.waiting(client_id, what)
  tell(client_id, 'agent-ls: waiting for you (' .. what .. ')')
end

return M
