-- Trending: an exponentially decayed sum of views and downloads, kept as its base-2 logarithm at the epoch
-- (log2 of sum of weight * 2^(t / half-life)), so adding events never rewrites the others and never overflows.
-- NULL: never viewed. Ordered by it, then newest first.
ALTER TABLE memes ADD COLUMN trending double precision;
CREATE INDEX memes_public_trending ON memes (trending DESC NULLS LAST, created_at DESC, id DESC)
  WHERE status = 'approved' AND deleted_at IS NULL;
