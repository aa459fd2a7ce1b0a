-- Node actions (stop/start/restart): one row per request, kept as their audit. While an action
-- runs its row holds lock_key = 1 (unique), so only one action runs at a time across every
-- instance; expires_at frees the lock if the instance running it died.
CREATE TABLE node_actions (
  id bigserial PRIMARY KEY,
  action text NOT NULL CHECK (action IN ('stop', 'start', 'restart')),
  username text,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  lock_key smallint UNIQUE CHECK (lock_key = 1),
  expires_at timestamptz,
  ok boolean,
  status_code integer,
  detail text NOT NULL DEFAULT '',
  ssh_command text,
  ssh_exit_code integer,
  ssh_duration_ms integer,
  ssh_attempts integer
);
CREATE INDEX node_actions_started_at_idx ON node_actions (started_at);
