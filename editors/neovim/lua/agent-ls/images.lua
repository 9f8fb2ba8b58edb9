-- Images for the next prompt: :AgentImage attaches a file or what the
-- user's configured clipboard command prints; :AgentAsk takes
-- @path/to/shot.png words as images too. They go to the server as
-- file: URIs in agent/startTurn's images (the server bounds and sends
-- them).
local M = {}

local pending = {}

local image_ext = { png = true, jpg = true, jpeg = true, gif = true, webp = true }

local function is_image_path(path)
  local ext = path:match('%.([%w]+)$')
  return ext ~= nil and image_ext[ext:lower()] == true and vim.fn.filereadable(vim.fn.expand(path)) == 1
end

--- Takes the @image words out of prompt: returns the prompt, in which
--- each stays as the file's name for the model to refer to, and the
--- images to send with it (those :AgentImage attached first). The
--- attached ones are sent once.
function M.take(prompt)
  local uris = pending
  pending = {}
  prompt = prompt:gsub('@(%S+)', function(path)
    if not is_image_path(path) then
      return nil -- not an image: left as it is
    end
    table.insert(uris, vim.uri_from_fname(vim.fn.fnamemodify(vim.fn.expand(path), ':p')))
    return '[image ' .. vim.fn.fnamemodify(path, ':t') .. ']'
  end)
  if #uris == 0 then
    return prompt, nil -- an empty table would go as {}, not []
  end
  return prompt, uris
end

--- How many images wait for the next prompt.
function M.count()
  return #pending
end

-- clipboard_file runs cmd (a list) and writes what it prints to a new
-- file in Neovim's state folder; returns the path or nil and an error.
-- Job output keeps NUL bytes as NL inside list items (:h channel-lines),
-- so the bytes are put back exactly.
local function clipboard_file(cmd)
  local chunks
  local job = vim.fn.jobstart(cmd, {
    stdout_buffered = true,
    on_stdout = function(_, data)
      chunks = data
    end,
  })
  if job <= 0 then
    return nil, 'cannot run ' .. tostring(cmd[1])
  end
  local code = vim.fn.jobwait({ job }, 5000)[1]
  if code ~= 0 then
    return nil, string.format('%s exited %d (is there an image on the clipboard?)', cmd[1], code)
  end
  for i, line in ipairs(chunks or {}) do
    chunks[i] = line:gsub('\n', '\0')
  end
  local bytes = table.concat(chunks or {}, '\n')
  if bytes == '' then
    return nil, cmd[1] .. ' printed nothing (is there an image on the clipboard?)'
  end
  -- Neovim 0.7 has no state folder: its data folder then.
  local ok, state = pcall(vim.fn.stdpath, 'state')
  local dir = (ok and state or vim.fn.stdpath('data')) .. '/agent-ls/images'
  vim.fn.mkdir(dir, 'p')
  local path = string.format('%s/clipboard-%s-%d.png', dir, os.date('%Y%m%d-%H%M%S'), vim.loop.hrtime() % 1000000)
  local f, err = io.open(path, 'wb')
  if not f then
    return nil, err
  end
  f:write(bytes)
  f:close()
  return path
end

--- :AgentImage [PATH]: attaches the image file, or without a path the
--- clipboard's image (through options.image_paste_cmd), to the next
--- prompt.
function M.command(opts, options, notify)
  local path = opts.args
  if path == '' then
    local cmd = options.image_paste_cmd
    if not cmd then
      notify('set image_paste_cmd in setup() (such as { "wl-paste", "--type", "image/png" }) or give :AgentImage a path', vim.log.levels.ERROR)
      return
    end
    local err
    path, err = clipboard_file(cmd)
    if not path then
      notify('no image from the clipboard: ' .. err, vim.log.levels.ERROR)
      return
    end
  elseif not is_image_path(path) then
    notify(path .. ' is not a readable PNG, JPEG, GIF or WebP file', vim.log.levels.ERROR)
    return
  end
  table.insert(pending, vim.uri_from_fname(vim.fn.fnamemodify(vim.fn.expand(path), ':p')))
  notify(string.format('image attached to the next prompt (%d waiting): %s', #pending, vim.fn.fnamemodify(path, ':~:.')))
end

return M
