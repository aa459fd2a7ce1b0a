-- Placeholder so the migrator has a first step; domain tables follow in later migrations.
CREATE TABLE IF NOT EXISTS service_info (key text PRIMARY KEY, value text NOT NULL);
