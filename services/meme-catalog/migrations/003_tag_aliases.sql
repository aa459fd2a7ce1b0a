-- Other names of a catalog tag: a tag filter or query word naming an alias finds the tag's memes.
-- Aliases and tag names share one namespace (checked by the tag use cases under one lock).
CREATE TABLE tag_aliases (
  alias text PRIMARY KEY CHECK (alias = lower(alias) AND char_length(alias) BETWEEN 1 AND 60),
  tag text NOT NULL REFERENCES tags (name) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tag_aliases_tag ON tag_aliases (tag, alias);
