-- Start/restart record their phases as they happen (the app polls them while the action runs), and a
-- start with -reindex is an action of its own.
ALTER TABLE node_actions ADD COLUMN phases jsonb;
ALTER TABLE node_actions DROP CONSTRAINT node_actions_action_check;
ALTER TABLE node_actions ADD CONSTRAINT node_actions_action_check CHECK (action IN ('stop', 'start', 'restart', 'start-reindex'));
