-- Up Migration

-- A streamed completion's usage is reserved before the first token goes out (the prompt's size as
-- an estimate) and settled with the provider's figures at the end; a stream that never settles
-- (the client left, the database was down at the end) still counts with its reservation.
ALTER TABLE llm_usage ADD COLUMN settled boolean NOT NULL DEFAULT true;

-- Down Migration
ALTER TABLE llm_usage DROP COLUMN settled;
