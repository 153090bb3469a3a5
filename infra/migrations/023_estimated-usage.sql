-- Up Migration

-- A model call whose provider reported no usage is counted by Weft with the model's tokenizer: its
-- step, and the task it belongs to, say the tokens are estimated.
ALTER TABLE task_usage ADD COLUMN estimated boolean NOT NULL DEFAULT false;
ALTER TABLE tasks ADD COLUMN usage_estimated boolean NOT NULL DEFAULT false;

-- Down Migration

ALTER TABLE tasks DROP COLUMN usage_estimated;
ALTER TABLE task_usage DROP COLUMN estimated;
