-- One request shape for wrk: `-- <method> <body or ''> ['Name: value' ...]` after the URL (see lib-wrk.ts).

-- Set in init, before wrk formats its one request, so every request carries the same method, headers and body.
function init(args)
  wrk.method = args[1]
  if args[2] ~= nil and args[2] ~= "" then
    wrk.body = args[2]
  end
  for i = 3, #args do
    local name, value = string.match(args[i], "^([^:]+):%s*(.*)$")
    if name == nil then
      error("request.lua: header argument without a colon: " .. args[i])
    end
    wrk.headers[name] = value
  end
end
