-- Scan: one of 1,000 segments of the table per request (ITEMS / 1,000 items each).
local n = 0
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "common.lua")("Scan")
init = function() math.randomseed(os.time() + id) n = math.random(1000) end
request = function()
  n = (n + 1) % 1000
  local body = string.format('{"TableName":"Telemetry","Segment":%d,"TotalSegments":1000}', n)
  return wrk.format(nil, "/", nil, body)
end
