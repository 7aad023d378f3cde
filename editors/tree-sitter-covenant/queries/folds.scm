[
  (settings_body)
  (api_body)
  (enum_body)
  (model_body)
  (endpoint_body)
  (event_body)
  (rate_limit_body)
  (states_body)
  (changelog_body)
  (headers)
  (argument_list)
  (list)
] @fold
