-- Memes: one row per distinct uploaded file; id is the SHA-256 hex of the uploaded bytes.
CREATE TABLE memes (
  id text PRIMARY KEY CHECK (id ~ '^[a-f0-9]{64}$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  status text NOT NULL CHECK (status IN ('approved', 'pending', 'rejected')),
  deleted_at timestamptz,
  byte_size integer NOT NULL CHECK (byte_size >= 0),
  width integer NOT NULL CHECK (width >= 1),
  height integer NOT NULL CHECK (height >= 1),
  mime text NOT NULL DEFAULT 'image/webp',
  original_mime text NOT NULL CHECK (original_mime IN ('image/png', 'image/jpeg')),
  original_name text NOT NULL,
  moderation_score integer NOT NULL CHECK (moderation_score BETWEEN 0 AND 100),
  moderation_reason text NOT NULL,
  view_count bigint NOT NULL DEFAULT 0,
  download_count bigint NOT NULL DEFAULT 0,
  demo boolean NOT NULL DEFAULT false,
  caption text NOT NULL DEFAULT '' CHECK (char_length(caption) <= 2000),
  -- 64-bit perceptual hash (dHash) as 16 hex chars, for near-duplicate flags.
  phash text,
  -- Ids of existing memes this one looks nearly identical to (admin review hint).
  near_duplicate_of text[] NOT NULL DEFAULT '{}',
  uploader_ip text
);
CREATE INDEX memes_public_newest ON memes (created_at DESC, id) WHERE status = 'approved' AND deleted_at IS NULL;
CREATE INDEX memes_status ON memes (status, created_at DESC) WHERE deleted_at IS NULL;

-- Normalized WebP bytes, written in the same transaction as the meme row.
CREATE TABLE meme_media (
  meme_id text PRIMARY KEY REFERENCES memes (id) ON DELETE CASCADE,
  bytes bytea NOT NULL
);

-- The admin-managed tag catalog.
CREATE TABLE tags (
  name text PRIMARY KEY CHECK (name = lower(name) AND char_length(name) BETWEEN 1 AND 60),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE meme_tags (
  meme_id text NOT NULL REFERENCES memes (id) ON DELETE CASCADE,
  tag text NOT NULL REFERENCES tags (name) ON DELETE CASCADE,
  PRIMARY KEY (meme_id, tag)
);
CREATE INDEX meme_tags_tag ON meme_tags (tag);

-- Hashes of files moderation rejected, so the same bytes are refused without re-running the model.
CREATE TABLE rejected_hashes (
  sha256 text PRIMARY KEY,
  moderation_score integer NOT NULL,
  moderation_reason text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- One row per upload that reached moderation; quotas count these.
CREATE TABLE upload_events (
  id bigserial PRIMARY KEY,
  ip text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX upload_events_ip_time ON upload_events (ip, created_at);
CREATE INDEX upload_events_time ON upload_events (created_at);

-- Durable caption jobs (FOR UPDATE SKIP LOCKED workers, retries with backoff).
CREATE TABLE caption_jobs (
  id bigserial PRIMARY KEY,
  meme_id text NOT NULL REFERENCES memes (id) ON DELETE CASCADE,
  state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  run_at timestamptz NOT NULL DEFAULT now(),
  locked_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX caption_jobs_due ON caption_jobs (run_at) WHERE state IN ('queued', 'running');

-- Every admin change: who, what, when.
CREATE TABLE admin_audit (
  id bigserial PRIMARY KEY,
  actor text NOT NULL,
  action text NOT NULL,
  meme_id text,
  detail jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
