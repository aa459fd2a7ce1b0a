-- Every save of the node's config file from the app: who, where, the backup kept on the node host, and a
-- unified diff with rpcpassword/rpcauth values masked.
CREATE TABLE node_config_saves (
  id bigserial PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  username text,
  path text NOT NULL,
  backup_path text NOT NULL,
  diff text NOT NULL
);
CREATE INDEX node_config_saves_created_at_idx ON node_config_saves (created_at);
