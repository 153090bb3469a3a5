-- Up Migration

-- A key's name and description, as Shannon's gateway keeps them (POST /api/v1/auth/api-keys).
ALTER TABLE api_keys ADD COLUMN name text NOT NULL DEFAULT '', ADD COLUMN description text;

-- Down Migration

ALTER TABLE api_keys DROP COLUMN name, DROP COLUMN description;
