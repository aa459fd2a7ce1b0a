-- Each rollup row keeps its history point as JSON text (an array in the order of the answer's `fields`:
-- t, then the metrics of migration 002), written when the row changes (once per sample and width). A
-- history read then joins stored points instead of formatting ~200k floats per request; only output
-- buckets that take two rollup rows are averaged at read time.
ALTER TABLE metrics_rollup ADD COLUMN point text;

CREATE FUNCTION metrics_rollup_point() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- float8 text is the shortest exact form (finite here: every average divides by a non-zero count).
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
    || ']';
  RETURN NEW;
END
$$;

CREATE TRIGGER metrics_rollup_point BEFORE INSERT OR UPDATE ON metrics_rollup
  FOR EACH ROW EXECUTE FUNCTION metrics_rollup_point();

-- Rows written before this migration.
UPDATE metrics_rollup SET n = n;

ALTER TABLE metrics_rollup ALTER COLUMN point SET NOT NULL;
