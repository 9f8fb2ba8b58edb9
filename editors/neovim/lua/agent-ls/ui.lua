-- Asking the user from inside an LSP request handler, which must return
-- the answer.
--
-- Neovim 0.9 and later run a server request's handler in a coroutine: the
-- handler can yield until vim.ui.select calls back, so pickers that open
-- a window (telescope, dressing, fzf-lua) work. Neovim 0.7 and 0.8 call
-- it on the main thread: there the answer must come while the handler
-- runs, which the stock vim.ui.select (a numbered list) and any picker
-- that answers synchronously do; the handler waits for it otherwise.
local M = {}

-- answered calls ask(on_answer) and returns what on_answer was called
-- with: yielding in a coroutine, waiting on the main thread. withdraw
-- (when given) is set to a function that ends the wait with nil.
local function answered(ask, withdraw)
  local co, main = coroutine.running()
  local in_coroutine = co ~= nil and not main
  local done, answer, yielded = false, nil, false
  local function finish(value)
    if done then
      return
    end
    done, answer = true, value
    if yielded then
      vim.schedule(function()
        coroutine.resume(co)
      end)
    end
  end
  if withdraw then
    withdraw.cancel = function()
      finish(nil)
    end
  end
  ask(finish)
  if not done then
    if in_coroutine then
      yielded = true
      coroutine.yield()
    else
      while not done do
        vim.wait(1000, function()
          return done
        end, 20)
      end
    end
  end
  return answer
end

--- await(ask, withdraw) calls ask(finish) and returns what finish was
--- called with, without blocking Neovim's loop on 0.9 and later.
M.await = answered

--- select(items, opts, withdraw) asks with vim.ui.select and returns the
--- choice (nil when dismissed, or withdrawn through withdraw.cancel).
function M.select(items, opts, withdraw)
  return answered(function(finish)
    vim.ui.select(items, opts, finish)
  end, withdraw)
end

--- input(opts, withdraw) asks with vim.ui.input and returns the text
--- (nil when dismissed or withdrawn).
function M.input(opts, withdraw)
  return answered(function(finish)
    vim.ui.input(opts, finish)
  end, withdraw)
end

--- The diff of a patch in a scratch window, to read before deciding.
function M.show_diff(diff, title)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, require('agent-ls.visible').lines(vim.split(diff or '', '\n', { plain = true })))
  vim.bo[buf].filetype = 'diff'
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  pcall(vim.api.nvim_buf_set_name, buf, title)
  vim.cmd('botright split')
  vim.api.nvim_win_set_buf(0, buf)
  vim.cmd('redraw')
  return buf
end

return M
