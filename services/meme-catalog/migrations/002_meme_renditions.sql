-- Resized WebP renditions of a meme's stored image (GIPHY's fixed_width, fixed_height, ...), made once each.
CREATE TABLE meme_renditions (
  meme_id text NOT NULL REFERENCES memes (id) ON DELETE CASCADE,
  name text NOT NULL,
  bytes bytea NOT NULL,
  width integer NOT NULL CHECK (width > 0),
  height integer NOT NULL CHECK (height > 0),
  byte_size integer NOT NULL CHECK (byte_size > 0),
  PRIMARY KEY (meme_id, name)
);
