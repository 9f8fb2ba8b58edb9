-- workspace/applyEdit (protocol section 5): Neovim's own handler applies
-- the edit to the buffers (so the user can undo it); then each buffer
-- that had no unsaved changes of the user's before the edit is written,
-- so the commands the agent runs next see the change on disk. A buffer
-- with unsaved changes keeps the edit in the buffer only, and the server
-- tells the model that commands see the saved file.
local M = {}

local options

function M.setup(opts)
  options = opts
end

-- The URIs an edit touches (text edits only: files the server writes
-- itself are not buffers).
local function uris_of(edit)
  local uris = {}
  for uri in pairs(edit.changes or {}) do
    uris[uri] = true
  end
  for _, dc in ipairs(edit.documentChanges or {}) do
    if dc.textDocument and dc.textDocument.uri then
      uris[dc.textDocument.uri] = true
    end
  end
  return uris
end

-- clean_buffers returns the buffers of uris that hold no unsaved changes
-- (or are not loaded at all).
local function clean_buffers(uris)
  local clean = {}
  for uri in pairs(uris) do
    local ok, fname = pcall(vim.uri_to_fname, uri)
    if ok then
      local buf = vim.fn.bufnr(fname)
      if buf == -1 or not vim.api.nvim_buf_is_loaded(buf) then
        clean[fname] = true
      elseif not vim.bo[buf].modified then
        clean[fname] = true
      end
    end
  end
  return clean
end

-- write saves buf the way :update does, without asking anything.
local function write(buf)
  local ok, err = pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd('silent keepalt keepjumps update')
  end)
  if not ok then
    vim.notify('agent-ls: could not write ' .. vim.api.nvim_buf_get_name(buf) .. ': ' .. tostring(err), vim.log.levels.WARN)
  end
end

--- Handler of workspace/applyEdit.
function M.apply_edit(err, result, ctx, config)
  local stock = vim.lsp.handlers['workspace/applyEdit']
  if not (result and result.edit) then
    return stock(err, result, ctx, config)
  end
  local clean = clean_buffers(uris_of(result.edit))
  local res = stock(err, result, ctx, config)
  if options.write_agent_edits and type(res) == 'table' and res.applied then
    for fname in pairs(clean) do
      local buf = vim.fn.bufnr(fname)
      if buf ~= -1 and vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified and vim.bo[buf].buftype == '' then
        write(buf)
      end
    end
  end
  return res
end

return M
