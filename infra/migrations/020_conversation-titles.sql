-- Up Migration

-- A session's title, as Shannon's gateway keeps one (PATCH /api/v1/sessions/{id} {"title": ...}).
ALTER TABLE conversations ADD COLUMN title text NOT NULL DEFAULT '';

-- Down Migration

ALTER TABLE conversations DROP COLUMN title;
