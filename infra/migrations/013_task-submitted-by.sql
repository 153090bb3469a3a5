-- Up Migration

-- The key's user when it submitted the task for another user of its tenant (act_for_users); '' otherwise.
ALTER TABLE tasks ADD COLUMN submitted_by text NOT NULL DEFAULT '';

-- Down Migration
ALTER TABLE tasks DROP COLUMN submitted_by;
