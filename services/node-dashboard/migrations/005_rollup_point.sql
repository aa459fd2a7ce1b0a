-- Each rollup row keeps its history point as JSON text, written when the row changes (once per sample
-- and width). A history read then concatenates stored points instead of formatting ~200k floats per
-- request; only output buckets that take two rollup rows are averaged at read time.
ALTER TABLE metrics_rollup ADD COLUMN point text;

CREATE FUNCTION metrics_rollup_point() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- float8 text is the shortest exact form (finite here: every average divides by a non-zero count).
  NEW.point := '{"t":' || (NEW.t_sum / NEW.n)::text
    || ',"height":' || coalesce((NEW.height_sum / nullif(NEW.height_n, 0))::text, 'null')
    || ',"headers":' || coalesce((NEW.headers_sum / nullif(NEW.headers_n, 0))::text, 'null')
    || ',"verification_progress":' || coalesce((NEW.verification_progress_sum / nullif(NEW.verification_progress_n, 0))::text, 'null')
    || ',"difficulty":' || coalesce((NEW.difficulty_sum / nullif(NEW.difficulty_n, 0))::text, 'null')
    || ',"mempool_tx":' || coalesce((NEW.mempool_tx_sum / nullif(NEW.mempool_tx_n, 0))::text, 'null')
    || ',"mempool_bytes":' || coalesce((NEW.mempool_bytes_sum / nullif(NEW.mempool_bytes_n, 0))::text, 'null')
    || ',"mempool_usage":' || coalesce((NEW.mempool_usage_sum / nullif(NEW.mempool_usage_n, 0))::text, 'null')
    || ',"peers_in":' || coalesce((NEW.peers_in_sum / nullif(NEW.peers_in_n, 0))::text, 'null')
    || ',"peers_out":' || coalesce((NEW.peers_out_sum / nullif(NEW.peers_out_n, 0))::text, 'null')
    || ',"network_hashps":' || coalesce((NEW.network_hashps_sum / nullif(NEW.network_hashps_n, 0))::text, 'null')
    || ',"bytes_sent":' || coalesce((NEW.bytes_sent_sum / nullif(NEW.bytes_sent_n, 0))::text, 'null')
    || ',"bytes_recv":' || coalesce((NEW.bytes_recv_sum / nullif(NEW.bytes_recv_n, 0))::text, 'null')
    || ',"wallet_balance":' || coalesce((NEW.wallet_balance_sum / nullif(NEW.wallet_balance_n, 0))::text, 'null')
    || '}';
  RETURN NEW;
END
$$;

CREATE TRIGGER metrics_rollup_point BEFORE INSERT OR UPDATE ON metrics_rollup
  FOR EACH ROW EXECUTE FUNCTION metrics_rollup_point();

-- Rows written before this migration.
UPDATE metrics_rollup SET n = n;

ALTER TABLE metrics_rollup ALTER COLUMN point SET NOT NULL;
