-- Drives Neovim as a person would, with nothing configured but the README's snippet:
-- waits for the server, types an error, reads its diagnostic, removes it, hovers, jumps to
-- a definition, renames a model and saves. Writes what it saw as JSON to $RESULT and quits.
local env = vim.env
local seen = {}

local function wait(what, condition)
  if not vim.wait(20000, condition, 20) then
    error("timed out waiting for " .. what)
  end
end

local function run()
  local buf = vim.api.nvim_get_current_buf()
  wait("the server to attach", function()
    return #vim.lsp.buf_get_clients(buf) > 0
  end)
  local errors = function()
    return vim.diagnostic.get(buf, { severity = vim.diagnostic.severity.ERROR })
  end
  wait("the spec to check", function()
    local client = vim.lsp.buf_get_clients(buf)[1]
    return client and client.initialized
  end)

  -- An error typed into the file: a field with a misspelt type.
  local error_line = tonumber(env.ERROR_AFTER_LINE)
  vim.api.nvim_buf_set_lines(buf, error_line, error_line, false, { "    nickname: Strin" })
  wait("a diagnostic", function()
    return #errors() > 0
  end)
  seen.diagnostic = errors()[1].message
  seen.diagnostic_line = errors()[1].lnum
  vim.api.nvim_buf_set_lines(buf, error_line, error_line + 1, false, {})
  wait("the diagnostic to clear", function()
    return #errors() == 0
  end)

  -- Hover and go to definition from a use of the model.
  vim.api.nvim_win_set_cursor(0, { tonumber(env.USE_LINE), tonumber(env.USE_COLUMN) })
  local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover", vim.lsp.util.make_position_params(), 10000)
  for _, answer in pairs(hover or {}) do
    if answer.result then
      seen.hover = answer.result.contents.value
    end
  end
  vim.lsp.buf.definition()
  wait("the jump to the definition", function()
    return vim.api.nvim_win_get_cursor(0)[1] == tonumber(env.DECLARATION_LINE)
  end)
  seen.definition_line = vim.api.nvim_win_get_cursor(0)[1]

  -- Rename the model from its declaration, and save.
  vim.lsp.buf.rename(env.RENAME_TO)
  wait("the rename", function()
    local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
    return text:find("model " .. env.RENAME_TO .. " {", 1, true) ~= nil
  end)
  vim.cmd("write")
  seen.saved = true
end

local ok, problem = pcall(run)
seen.ok = ok
seen.problem = problem and tostring(problem) or nil
local file = io.open(env.RESULT, "w")
file:write(vim.fn.json_encode(seen))
file:close()
vim.cmd("qall!")
