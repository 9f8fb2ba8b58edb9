-- Text from the model, the repository or a server, made safe to show:
-- the same escapes as agent-ls's own (Go's textcut.Visible). The C0
-- controls but newline and tab (\r, \x1b), DEL (\x7f), the C1 controls
-- (\u009b), the bidi embeddings, overrides and isolates (\u202e, \u2066)
-- and the zero-width characters and direction marks (\u200b…\u200f), and
-- each byte that is not valid UTF-8 (\xff), are written out, so that the
-- user sees something is there. Raw, an escape sequence could reach the
-- terminal through a message or a picker's prompt, and a bidi override
-- could make a command or a file name read as another.
local M = {}

local named = { [7] = '\\a', [8] = '\\b', [9] = '\\t', [10] = '\\n', [11] = '\\v', [12] = '\\f', [13] = '\\r' }

local function hidden(cp)
  return (cp >= 0x80 and cp <= 0x9f) or (cp >= 0x200b and cp <= 0x200f) or (cp >= 0x202a and cp <= 0x202e)
    or (cp >= 0x2066 and cp <= 0x2069)
end

-- decode returns the code point of the UTF-8 sequence at i and its
-- length, or nil when the bytes there are not valid UTF-8.
local function decode(s, i)
  local c = s:byte(i)
  local n, cp, least
  if c >= 0xc2 and c <= 0xdf then
    n, cp, least = 2, c - 0xc0, 0x80
  elseif c >= 0xe0 and c <= 0xef then
    n, cp, least = 3, c - 0xe0, 0x800
  elseif c >= 0xf0 and c <= 0xf4 then
    n, cp, least = 4, c - 0xf0, 0x10000
  else
    return nil
  end
  for k = 1, n - 1 do
    local b = s:byte(i + k)
    if not b or b < 0x80 or b > 0xbf then
      return nil
    end
    cp = cp * 64 + (b - 0x80)
  end
  if cp < least or cp > 0x10ffff or (cp >= 0xd800 and cp <= 0xdfff) then
    return nil
  end
  return cp, n
end

local function escape(s, line)
  s = tostring(s or '')
  if not s:find('[^\t\n -~]') then
    if not line or not s:find('[\t\n]') then
      return s
    end
  end
  local out, i, n, start = {}, 1, #s, 1
  while i <= n do
    local c = s:byte(i)
    local esc, len = nil, 1
    if c < 0x80 then
      if c == 9 or c == 10 then
        esc = line and named[c] or nil
      elseif c < 32 or c == 127 then
        esc = named[c] or string.format('\\x%02x', c)
      end
    else
      local cp, l = decode(s, i)
      if not cp then
        esc = string.format('\\x%02x', c)
      else
        len = l
        if hidden(cp) then
          esc = string.format('\\u%04x', cp)
        end
      end
    end
    if esc then
      out[#out + 1] = s:sub(start, i - 1)
      out[#out + 1] = esc
      start = i + len
    end
    i = i + len
  end
  out[#out + 1] = s:sub(start)
  return table.concat(out)
end

--- text(s): s with its hidden characters escaped; newlines and tabs kept.
function M.text(s)
  return escape(s, false)
end

--- line(s): text for one line (a prompt, a title, a file name): newlines
--- and tabs escaped too.
function M.line(s)
  return escape(s, true)
end

--- lines(list): each line of list through text.
function M.lines(list)
  local out = {}
  for i, l in ipairs(list) do
    out[i] = escape(l, false)
  end
  return out
end

local keywords = {}
for _, k in ipairs({ '!', '{', '}', '[[', ']]', 'case', 'coproc', 'do', 'done', 'elif', 'else', 'esac', 'fi', 'for', 'function', 'if', 'in', 'select', 'then', 'time', 'until', 'while' }) do
  keywords[k] = true
end

--- shell_word(a) quotes one argument as agent-ls quotes a command to
--- approve (bash quoting, as mvdan.cc/sh's syntax.Quote does): bare when
--- it can be, in single quotes, in double quotes when it has a single
--- quote, and as $'…' with its hidden characters escaped when it has any.
function M.shell_word(a)
  a = tostring(a)
  if a == '' then
    return "''"
  end
  if escape(a, true) ~= a then
    local body = a:gsub('\\', '\\\\'):gsub("'", "\\'")
    return "$'" .. escape(body, true) .. "'"
  end
  if not a:find('[;"\'()$|&><`%s\\#{~*?%[=]') and not keywords[a] then
    return a
  end
  if not a:find("'") then
    return "'" .. a .. "'"
  end
  return '"' .. a:gsub('["\\`$]', '\\%0') .. '"'
end

--- shell_words(argv): the command as one line, one shell word per
--- argument.
function M.shell_words(argv)
  if type(argv) ~= 'table' then
    return M.line(argv)
  end
  local out = {}
  for _, a in ipairs(argv) do
    table.insert(out, M.shell_word(a))
  end
  return table.concat(out, ' ')
end

return M
