-- Sessions of @fastify/session, shared by every instance; expired rows are pruned by the app.
CREATE TABLE sessions (
  sid text PRIMARY KEY,
  data jsonb NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);

-- One row per dashboard user; only the scrypt hash of a generated password is ever stored.
CREATE TABLE dashboard_credentials (
  username text PRIMARY KEY,
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- IPs that spent their failed-login budget, so every instance refuses them until blocked_until.
CREATE TABLE login_blocks (
  ip text PRIMARY KEY,
  blocked_until timestamptz NOT NULL
);

-- The single node settings row; secrets are AES-256-GCM ciphertexts ('' when unset).
CREATE TABLE node_settings (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  rpc_url text NOT NULL DEFAULT '',
  rpc_username text NOT NULL DEFAULT '',
  rpc_password_enc text NOT NULL DEFAULT '',
  rpc_wallet text NOT NULL DEFAULT '',
  config_path text NOT NULL DEFAULT '',
  ssh_host text NOT NULL DEFAULT '',
  ssh_port integer NOT NULL DEFAULT 22 CHECK (ssh_port BETWEEN 1 AND 65535),
  ssh_username text NOT NULL DEFAULT '',
  ssh_password_enc text NOT NULL DEFAULT '',
  ssh_key_path text NOT NULL DEFAULT '',
  node_binary text NOT NULL DEFAULT 'bitcoind',
  ssh_host_key_fingerprint text NOT NULL DEFAULT '',
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO node_settings (id) VALUES (1) ON CONFLICT DO NOTHING;

-- One row per sampler tick.
CREATE TABLE metrics (
  sampled_at timestamptz NOT NULL,
  height integer,
  headers integer,
  verification_progress double precision,
  difficulty double precision,
  mempool_tx integer,
  mempool_bytes bigint,
  mempool_usage bigint,
  peers_in integer,
  peers_out integer,
  network_hashps double precision,
  bytes_sent bigint,
  bytes_recv bigint,
  wallet_balance double precision
);
CREATE INDEX metrics_sampled_at_idx ON metrics (sampled_at);

-- Leader leases (the sampler): one holder per name until expires_at.
CREATE TABLE leases (
  name text PRIMARY KEY,
  holder text NOT NULL,
  expires_at timestamptz NOT NULL
);

-- Audit of RPC explorer calls and node actions; never the params or any secret.
CREATE TABLE audit_log (
  id bigserial PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  username text,
  kind text NOT NULL,
  name text NOT NULL,
  ok boolean NOT NULL,
  outcome text NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_created_at_idx ON audit_log (created_at);
