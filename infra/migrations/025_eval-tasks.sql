-- Up Migration

-- An eval's tasks (weft eval) are tasks like any other, kept apart from production listings by the
-- eval they belong to; '' for every other task. A task run from a template names it (name@version),
-- so an eval can pick the last runs of a template.
ALTER TABLE tasks ADD COLUMN eval_id text NOT NULL DEFAULT '';
ALTER TABLE tasks ADD COLUMN template text NOT NULL DEFAULT '';
CREATE INDEX tasks_eval ON tasks (eval_id) WHERE eval_id <> '';
CREATE INDEX tasks_template ON tasks (tenant_id, template, created_at) WHERE template <> '';

-- Down Migration
DROP INDEX tasks_template;
DROP INDEX tasks_eval;
ALTER TABLE tasks DROP COLUMN template;
ALTER TABLE tasks DROP COLUMN eval_id;
