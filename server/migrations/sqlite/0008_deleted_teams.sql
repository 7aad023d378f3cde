-- A deleted team is kept, with its users and their data, reachable by no key: its keys are
-- deleted with it and management keys no longer control it.
ALTER TABLE teams ADD COLUMN deleted_at BIGINT;
