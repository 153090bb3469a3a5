-- Up Migration

-- How a person's decision reached the task: 'api' (ApproveTask, after its role and tenant checks),
-- 'signal' or 'update' (straight through Temporal); '' for an expiry or an older decision.
ALTER TABLE approvals ADD COLUMN decided_via text NOT NULL DEFAULT '';

-- Down Migration
ALTER TABLE approvals DROP COLUMN decided_via;
