-- The mixed workload for wrk: `-- <token> <customerId> <invoiceId> <customer body> <ACH body> <sale body>`.

-- Every 20 requests of a thread: 8 customer reads, 4 customer creates, 2 customer lists, 2 ACH debits,
-- 2 card sales, 1 invoice read and 1 invoice PDF, interleaved so that no kind comes in a burst.
-- The cycle stays fixed rather than random, so that two runs load the same mix.
local requests = {}
local position = 0

local function build(method, path, token, body)
  -- A fresh table per request: wrk.format sets Host and Content-Length in the table it is given.
  local headers = { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json" }
  return wrk.format(method, path, headers, body)
end

-- Runs in wrk's main state once per thread: gives each thread its number (a global `id` in its state).
local threads = 0
function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end

function init(args)
  local token, customerId, invoiceId = args[1], args[2], args[3]
  local kinds = {
    G = build("GET", "/pay-api/v1/customers/" .. customerId, token),
    P = build("POST", "/pay-api/v1/customers", token, args[4]),
    L = build("GET", "/pay-api/v1/customers?pageSize=20", token),
    A = build("POST", "/pay-api/v1/transactions/ach/payment", token, args[5]),
    C = build("POST", "/pay-api/v1/transactions/card/sale", token, args[6]),
    I = build("GET", "/pay-int-api/invoices/" .. invoiceId, token),
    D = build("GET", "/pay-int-api/invoices/" .. invoiceId .. "/download-pdf", token),
  }
  -- G x8, P x4, L x2, A x2, C x2, I x1, D x1.
  local order = { "G", "P", "G", "A", "L", "G", "C", "P", "G", "I",
                  "G", "P", "A", "G", "L", "C", "G", "P", "G", "D" }
  for i, kind in ipairs(order) do
    requests[i] = kinds[kind]
  end
  -- The threads start half a cycle apart, so that the two of them do not send the same kind at once.
  position = (id or 0) * 10
end

function request()
  position = position % #requests + 1
  return requests[position]
end
