-- Alert rules with their evaluation state: `firing` is what the last evaluation decided, so a rule
-- fires once when its condition becomes true and resolves once, across restarts and instances.
CREATE TABLE alert_rules (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('node_unreachable', 'tip_stalled', 'peers_below', 'initial_download', 'mempool_above', 'wallet_balance_below')),
  threshold double precision,
  enabled boolean NOT NULL DEFAULT true,
  firing boolean NOT NULL DEFAULT false,
  detail text NOT NULL DEFAULT '',
  changed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Webhook targets; the URL is a secret (AES-256-GCM like the node passwords), url_hint its scheme and host.
CREATE TABLE alert_targets (
  id bigserial PRIMARY KEY,
  name text NOT NULL,
  format text NOT NULL CHECK (format IN ('json', 'ntfy', 'slack', 'discord')),
  url_enc text NOT NULL,
  url_hint text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- One row per notification and target: the outbox the dispatchers of every instance claim from
-- (claimed_until), and afterwards the record of its outcome. Each attempt is in audit_log too.
CREATE TABLE alert_deliveries (
  id bigserial PRIMARY KEY,
  target_id bigint NOT NULL REFERENCES alert_targets (id) ON DELETE CASCADE,
  rule_id bigint,
  event text NOT NULL CHECK (event IN ('fired', 'resolved', 'test')),
  notification jsonb NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed', 'dropped')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  claimed_until timestamptz,
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX alert_deliveries_pending_idx ON alert_deliveries (next_attempt_at) WHERE state = 'pending';

-- What the rules need from earlier rounds: since when the node has not answered, and since when its tip is where it is.
CREATE TABLE alert_node_state (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  last_round_at timestamptz,
  unreachable_since timestamptz,
  tip_height bigint,
  tip_since timestamptz
);
INSERT INTO alert_node_state (id) VALUES (1) ON CONFLICT DO NOTHING;
