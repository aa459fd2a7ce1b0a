-- Path of the node's RPC cookie file (bitcoind's default authentication). The cookie itself is never stored.
ALTER TABLE node_settings ADD COLUMN rpc_cookie_path text NOT NULL DEFAULT '';
