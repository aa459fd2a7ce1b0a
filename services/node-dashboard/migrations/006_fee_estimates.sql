-- Fee estimates (estimatesmartfee for 1, 3, 6, 12 and 144 blocks, in sat/vB) join the sampled metrics: new
-- columns in metrics and metrics_rollup, and both triggers of migrations 004 and 005 rewritten to carry them
-- (points keep the order of the answer's `fields`: t, the metrics of migration 002, then these).

ALTER TABLE metrics ADD COLUMN fee_rate_1 double precision, ADD COLUMN fee_rate_3 double precision, ADD COLUMN fee_rate_6 double precision, ADD COLUMN fee_rate_12 double precision, ADD COLUMN fee_rate_144 double precision;

ALTER TABLE metrics_rollup
  ADD COLUMN fee_rate_1_sum double precision NOT NULL DEFAULT 0, ADD COLUMN fee_rate_1_n integer NOT NULL DEFAULT 0,
  ADD COLUMN fee_rate_3_sum double precision NOT NULL DEFAULT 0, ADD COLUMN fee_rate_3_n integer NOT NULL DEFAULT 0,
  ADD COLUMN fee_rate_6_sum double precision NOT NULL DEFAULT 0, ADD COLUMN fee_rate_6_n integer NOT NULL DEFAULT 0,
  ADD COLUMN fee_rate_12_sum double precision NOT NULL DEFAULT 0, ADD COLUMN fee_rate_12_n integer NOT NULL DEFAULT 0,
  ADD COLUMN fee_rate_144_sum double precision NOT NULL DEFAULT 0, ADD COLUMN fee_rate_144_n integer NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION metrics_rollup_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO metrics_rollup (width, bucket, n, t_sum, height_sum, height_n, headers_sum, headers_n, verification_progress_sum, verification_progress_n, difficulty_sum, difficulty_n, mempool_tx_sum, mempool_tx_n, mempool_bytes_sum, mempool_bytes_n, mempool_usage_sum, mempool_usage_n, peers_in_sum, peers_in_n, peers_out_sum, peers_out_n, network_hashps_sum, network_hashps_n, bytes_sent_sum, bytes_sent_n, bytes_recv_sum, bytes_recv_n, wallet_balance_sum, wallet_balance_n, fee_rate_1_sum, fee_rate_1_n, fee_rate_3_sum, fee_rate_3_n, fee_rate_6_sum, fee_rate_6_n, fee_rate_12_sum, fee_rate_12_n, fee_rate_144_sum, fee_rate_144_n)
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
      coalesce(sum(r.wallet_balance), 0), count(r.wallet_balance),
      coalesce(sum(r.fee_rate_1), 0), count(r.fee_rate_1),
      coalesce(sum(r.fee_rate_3), 0), count(r.fee_rate_3),
      coalesce(sum(r.fee_rate_6), 0), count(r.fee_rate_6),
      coalesce(sum(r.fee_rate_12), 0), count(r.fee_rate_12),
      coalesce(sum(r.fee_rate_144), 0), count(r.fee_rate_144)
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
      wallet_balance_sum = metrics_rollup.wallet_balance_sum + EXCLUDED.wallet_balance_sum, wallet_balance_n = metrics_rollup.wallet_balance_n + EXCLUDED.wallet_balance_n,
      fee_rate_1_sum = metrics_rollup.fee_rate_1_sum + EXCLUDED.fee_rate_1_sum, fee_rate_1_n = metrics_rollup.fee_rate_1_n + EXCLUDED.fee_rate_1_n,
      fee_rate_3_sum = metrics_rollup.fee_rate_3_sum + EXCLUDED.fee_rate_3_sum, fee_rate_3_n = metrics_rollup.fee_rate_3_n + EXCLUDED.fee_rate_3_n,
      fee_rate_6_sum = metrics_rollup.fee_rate_6_sum + EXCLUDED.fee_rate_6_sum, fee_rate_6_n = metrics_rollup.fee_rate_6_n + EXCLUDED.fee_rate_6_n,
      fee_rate_12_sum = metrics_rollup.fee_rate_12_sum + EXCLUDED.fee_rate_12_sum, fee_rate_12_n = metrics_rollup.fee_rate_12_n + EXCLUDED.fee_rate_12_n,
      fee_rate_144_sum = metrics_rollup.fee_rate_144_sum + EXCLUDED.fee_rate_144_sum, fee_rate_144_n = metrics_rollup.fee_rate_144_n + EXCLUDED.fee_rate_144_n;
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION metrics_rollup_point() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.point := '[' || (NEW.t_sum / NEW.n)::text
    || ',' || coalesce((NEW.height_sum / nullif(NEW.height_n, 0))::text, 'null')
    || ',' || coalesce((NEW.headers_sum / nullif(NEW.headers_n, 0))::text, 'null')
    || ',' || coalesce((NEW.verification_progress_sum / nullif(NEW.verification_progress_n, 0))::text, 'null')
    || ',' || coalesce((NEW.difficulty_sum / nullif(NEW.difficulty_n, 0))::text, 'null')
    || ',' || coalesce((NEW.mempool_tx_sum / nullif(NEW.mempool_tx_n, 0))::text, 'null')
    || ',' || coalesce((NEW.mempool_bytes_sum / nullif(NEW.mempool_bytes_n, 0))::text, 'null')
    || ',' || coalesce((NEW.mempool_usage_sum / nullif(NEW.mempool_usage_n, 0))::text, 'null')
    || ',' || coalesce((NEW.peers_in_sum / nullif(NEW.peers_in_n, 0))::text, 'null')
    || ',' || coalesce((NEW.peers_out_sum / nullif(NEW.peers_out_n, 0))::text, 'null')
    || ',' || coalesce((NEW.network_hashps_sum / nullif(NEW.network_hashps_n, 0))::text, 'null')
    || ',' || coalesce((NEW.bytes_sent_sum / nullif(NEW.bytes_sent_n, 0))::text, 'null')
    || ',' || coalesce((NEW.bytes_recv_sum / nullif(NEW.bytes_recv_n, 0))::text, 'null')
    || ',' || coalesce((NEW.wallet_balance_sum / nullif(NEW.wallet_balance_n, 0))::text, 'null')
    || ',' || coalesce((NEW.fee_rate_1_sum / nullif(NEW.fee_rate_1_n, 0))::text, 'null')
    || ',' || coalesce((NEW.fee_rate_3_sum / nullif(NEW.fee_rate_3_n, 0))::text, 'null')
    || ',' || coalesce((NEW.fee_rate_6_sum / nullif(NEW.fee_rate_6_n, 0))::text, 'null')
    || ',' || coalesce((NEW.fee_rate_12_sum / nullif(NEW.fee_rate_12_n, 0))::text, 'null')
    || ',' || coalesce((NEW.fee_rate_144_sum / nullif(NEW.fee_rate_144_n, 0))::text, 'null')
    || ']';
  RETURN NEW;
END
$$;

-- Points written before this migration gain the new (null) values.
UPDATE metrics_rollup SET n = n;
