-- Which captioner (ocr, openai) or 'admin' wrote a meme's caption; null for captions stored with the meme.
ALTER TABLE memes ADD COLUMN caption_source text CHECK (caption_source IN ('ocr', 'openai', 'admin'));

-- Catalog tags a vision model proposed for a meme under review: shown to the admin, never applied by themselves.
CREATE TABLE meme_tag_suggestions (
  meme_id text NOT NULL REFERENCES memes (id) ON DELETE CASCADE,
  tag text NOT NULL REFERENCES tags (name) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (meme_id, tag)
);
