-- Failures shared by the scripted test plugins (search/fake, keyword/fake):
-- faults(calls, q, config_msg) reads the query "mode:n" and returns the mode
-- and the error table to answer, if the mode is a failure still due (the
-- first n calls fail); "raise:n" raises the error "boom CALLS" here.
return function(calls, q, config_msg)
  local mode, n = q:match("^(%a+):?(%d*)")
  n = tonumber(n) or 0
  if mode == "rl" and calls <= n then
    return mode, { error = "rate_limited", retry_after = 5, message = "slow down" }
  elseif mode == "busy" and calls <= n then
    return mode, { error = "unavailable" }
  elseif mode == "raise" and calls <= n then
    error("boom " .. calls)
  elseif mode == "config" then
    return mode, { error = "config", message = config_msg }
  elseif mode == "daily" then
    return mode, { error = "rate_limited", retry_after = 86400 }
  end
  return mode, nil
end
