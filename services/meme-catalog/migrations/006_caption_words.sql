-- Where the OCR captioner read each word of a meme's caption, so a viewer can draw the matched words over the image.
-- caption is the text the offsets point into: after an admin edits the caption the boxes no longer apply.
CREATE TABLE meme_caption_words (
  meme_id text PRIMARY KEY REFERENCES memes (id) ON DELETE CASCADE,
  caption text NOT NULL,
  -- [{text, start, end, x, y, w, h}]: start/end are UTF-16 offsets into caption (end exclusive),
  -- x/y/w/h whole pixels of the stored WebP (origin top left).
  words jsonb NOT NULL CHECK (jsonb_typeof(words) = 'array'),
  created_at timestamptz NOT NULL DEFAULT now()
);
