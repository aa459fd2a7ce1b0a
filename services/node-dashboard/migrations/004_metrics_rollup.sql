-- Pre-aggregated metrics: sums and counts per time bucket at several widths (seconds), so a
-- history over a long window reads at most about `limit` rows instead of every sample. Kept up to date by a
-- statement-level trigger (one grouped upsert per INSERT, however many rows it adds).
CREATE TABLE metrics_rollup (
  width integer NOT NULL,
  bucket bigint NOT NULL,
  n integer NOT NULL,
  t_sum double precision NOT NULL,
  height_sum double precision NOT NULL DEFAULT 0,
  height_n integer NOT NULL DEFAULT 0,
  headers_sum double precision NOT NULL DEFAULT 0,
  headers_n integer NOT NULL DEFAULT 0,
  verification_progress_sum double precision NOT NULL DEFAULT 0,
  verification_progress_n integer NOT NULL DEFAULT 0,
  difficulty_sum double precision NOT NULL DEFAULT 0,
  difficulty_n integer NOT NULL DEFAULT 0,
  mempool_tx_sum double precision NOT NULL DEFAULT 0,
  mempool_tx_n integer NOT NULL DEFAULT 0,
  mempool_bytes_sum double precision NOT NULL DEFAULT 0,
  mempool_bytes_n integer NOT NULL DEFAULT 0,
  mempool_usage_sum double precision NOT NULL DEFAULT 0,
  mempool_usage_n integer NOT NULL DEFAULT 0,
  peers_in_sum double precision NOT NULL DEFAULT 0,
  peers_in_n integer NOT NULL DEFAULT 0,
  peers_out_sum double precision NOT NULL DEFAULT 0,
  peers_out_n integer NOT NULL DEFAULT 0,
  network_hashps_sum double precision NOT NULL DEFAULT 0,
  network_hashps_n integer NOT NULL DEFAULT 0,
  bytes_sent_sum double precision NOT NULL DEFAULT 0,
  bytes_sent_n integer NOT NULL DEFAULT 0,
  bytes_recv_sum double precision NOT NULL DEFAULT 0,
  bytes_recv_n integer NOT NULL DEFAULT 0,
  wallet_balance_sum double precision NOT NULL DEFAULT 0,
  wallet_balance_n integer NOT NULL DEFAULT 0,
  PRIMARY KEY (width, bucket)
) PARTITION BY LIST (width);
-- One partition per width keeps a width's rows together: a history read is one short range scan.
CREATE TABLE metrics_rollup_60 PARTITION OF metrics_rollup FOR VALUES IN (60);
CREATE TABLE metrics_rollup_120 PARTITION OF metrics_rollup FOR VALUES IN (120);
CREATE TABLE metrics_rollup_300 PARTITION OF metrics_rollup FOR VALUES IN (300);
CREATE TABLE metrics_rollup_600 PARTITION OF metrics_rollup FOR VALUES IN (600);
CREATE TABLE metrics_rollup_1200 PARTITION OF metrics_rollup FOR VALUES IN (1200);
CREATE TABLE metrics_rollup_1800 PARTITION OF metrics_rollup FOR VALUES IN (1800);
CREATE TABLE metrics_rollup_3600 PARTITION OF metrics_rollup FOR VALUES IN (3600);
CREATE TABLE metrics_rollup_7200 PARTITION OF metrics_rollup FOR VALUES IN (7200);
CREATE TABLE metrics_rollup_14400 PARTITION OF metrics_rollup FOR VALUES IN (14400);
CREATE TABLE metrics_rollup_28800 PARTITION OF metrics_rollup FOR VALUES IN (28800);
CREATE TABLE metrics_rollup_86400 PARTITION OF metrics_rollup FOR VALUES IN (86400);

CREATE FUNCTION metrics_rollup_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO metrics_rollup (width, bucket, n, t_sum, height_sum, height_n, headers_sum, headers_n, verification_progress_sum, verification_progress_n, difficulty_sum, difficulty_n, mempool_tx_sum, mempool_tx_n, mempool_bytes_sum, mempool_bytes_n, mempool_usage_sum, mempool_usage_n, peers_in_sum, peers_in_n, peers_out_sum, peers_out_n, network_hashps_sum, network_hashps_n, bytes_sent_sum, bytes_sent_n, bytes_recv_sum, bytes_recv_n, wallet_balance_sum, wallet_balance_n)
    SELECT w.width, floor(extract(epoch FROM r.sampled_at) / w.width)::bigint, count(*), sum(extract(epoch FROM r.sampled_at)),
      coalesce(sum(r.height), 0), count(r.height),
      coalesce(sum(r.headers), 0), count(r.headers),
      coalesce(sum(r.verification_progress), 0), count(r.verification_progress),
      coalesce(sum(r.difficulty), 0), count(r.difficulty),
      coalesce(sum(r.mempool_tx), 0), count(r.mempool_tx),
      coalesce(sum(r.mempool_bytes), 0), count(r.mempool_bytes),
      coalesce(sum(r.mempool_usage), 0), count(r.mempool_usage),
      coalesce(sum(r.peers_in), 0), count(r.peers_in),
      coalesce(sum(r.peers_out), 0), count(r.peers_out),
      coalesce(sum(r.network_hashps), 0), count(r.network_hashps),
      coalesce(sum(r.bytes_sent), 0), count(r.bytes_sent),
      coalesce(sum(r.bytes_recv), 0), count(r.bytes_recv),
      coalesce(sum(r.wallet_balance), 0), count(r.wallet_balance)
    FROM new_rows r CROSS JOIN (VALUES (60), (120), (300), (600), (1200), (1800), (3600), (7200), (14400), (28800), (86400)) AS w(width)
    GROUP BY 1, 2
  ON CONFLICT (width, bucket) DO UPDATE SET
      n = metrics_rollup.n + EXCLUDED.n,
      t_sum = metrics_rollup.t_sum + EXCLUDED.t_sum,
      height_sum = metrics_rollup.height_sum + EXCLUDED.height_sum, height_n = metrics_rollup.height_n + EXCLUDED.height_n,
      headers_sum = metrics_rollup.headers_sum + EXCLUDED.headers_sum, headers_n = metrics_rollup.headers_n + EXCLUDED.headers_n,
      verification_progress_sum = metrics_rollup.verification_progress_sum + EXCLUDED.verification_progress_sum, verification_progress_n = metrics_rollup.verification_progress_n + EXCLUDED.verification_progress_n,
      difficulty_sum = metrics_rollup.difficulty_sum + EXCLUDED.difficulty_sum, difficulty_n = metrics_rollup.difficulty_n + EXCLUDED.difficulty_n,
      mempool_tx_sum = metrics_rollup.mempool_tx_sum + EXCLUDED.mempool_tx_sum, mempool_tx_n = metrics_rollup.mempool_tx_n + EXCLUDED.mempool_tx_n,
      mempool_bytes_sum = metrics_rollup.mempool_bytes_sum + EXCLUDED.mempool_bytes_sum, mempool_bytes_n = metrics_rollup.mempool_bytes_n + EXCLUDED.mempool_bytes_n,
      mempool_usage_sum = metrics_rollup.mempool_usage_sum + EXCLUDED.mempool_usage_sum, mempool_usage_n = metrics_rollup.mempool_usage_n + EXCLUDED.mempool_usage_n,
      peers_in_sum = metrics_rollup.peers_in_sum + EXCLUDED.peers_in_sum, peers_in_n = metrics_rollup.peers_in_n + EXCLUDED.peers_in_n,
      peers_out_sum = metrics_rollup.peers_out_sum + EXCLUDED.peers_out_sum, peers_out_n = metrics_rollup.peers_out_n + EXCLUDED.peers_out_n,
      network_hashps_sum = metrics_rollup.network_hashps_sum + EXCLUDED.network_hashps_sum, network_hashps_n = metrics_rollup.network_hashps_n + EXCLUDED.network_hashps_n,
      bytes_sent_sum = metrics_rollup.bytes_sent_sum + EXCLUDED.bytes_sent_sum, bytes_sent_n = metrics_rollup.bytes_sent_n + EXCLUDED.bytes_sent_n,
      bytes_recv_sum = metrics_rollup.bytes_recv_sum + EXCLUDED.bytes_recv_sum, bytes_recv_n = metrics_rollup.bytes_recv_n + EXCLUDED.bytes_recv_n,
      wallet_balance_sum = metrics_rollup.wallet_balance_sum + EXCLUDED.wallet_balance_sum, wallet_balance_n = metrics_rollup.wallet_balance_n + EXCLUDED.wallet_balance_n;
  RETURN NULL;
END
$$;

CREATE TRIGGER metrics_rollup_after_insert AFTER INSERT ON metrics
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION metrics_rollup_add();

-- Samples recorded before this migration.
INSERT INTO metrics_rollup (width, bucket, n, t_sum, height_sum, height_n, headers_sum, headers_n, verification_progress_sum, verification_progress_n, difficulty_sum, difficulty_n, mempool_tx_sum, mempool_tx_n, mempool_bytes_sum, mempool_bytes_n, mempool_usage_sum, mempool_usage_n, peers_in_sum, peers_in_n, peers_out_sum, peers_out_n, network_hashps_sum, network_hashps_n, bytes_sent_sum, bytes_sent_n, bytes_recv_sum, bytes_recv_n, wallet_balance_sum, wallet_balance_n)
  SELECT w.width, floor(extract(epoch FROM r.sampled_at) / w.width)::bigint, count(*), sum(extract(epoch FROM r.sampled_at)),
    coalesce(sum(r.height), 0), count(r.height),
      coalesce(sum(r.headers), 0), count(r.headers),
      coalesce(sum(r.verification_progress), 0), count(r.verification_progress),
      coalesce(sum(r.difficulty), 0), count(r.difficulty),
      coalesce(sum(r.mempool_tx), 0), count(r.mempool_tx),
      coalesce(sum(r.mempool_bytes), 0), count(r.mempool_bytes),
      coalesce(sum(r.mempool_usage), 0), count(r.mempool_usage),
      coalesce(sum(r.peers_in), 0), count(r.peers_in),
      coalesce(sum(r.peers_out), 0), count(r.peers_out),
      coalesce(sum(r.network_hashps), 0), count(r.network_hashps),
      coalesce(sum(r.bytes_sent), 0), count(r.bytes_sent),
      coalesce(sum(r.bytes_recv), 0), count(r.bytes_recv),
      coalesce(sum(r.wallet_balance), 0), count(r.wallet_balance)
  FROM metrics r CROSS JOIN (VALUES (60), (120), (300), (600), (1200), (1800), (3600), (7200), (14400), (28800), (86400)) AS w(width)
  GROUP BY 1, 2;
