-- A counter every change to what a credential or gate means moves on, in the transaction
-- of the change: each process caches principals and gates, and drops them when it reads a
-- new value here (at most a second after the change). Triggers move it, so no writer can
-- forget to. A new key needs no move: nothing of it can be cached before it exists.
CREATE TABLE auth_epoch (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    value INTEGER NOT NULL
);
INSERT INTO auth_epoch (id, value) VALUES (1, 0);

CREATE TRIGGER keys_updated AFTER UPDATE ON keys
BEGIN UPDATE auth_epoch SET value = value + 1 WHERE id = 1; END;
CREATE TRIGGER keys_deleted AFTER DELETE ON keys
BEGIN UPDATE auth_epoch SET value = value + 1 WHERE id = 1; END;
CREATE TRIGGER key_teams_inserted AFTER INSERT ON key_teams
BEGIN UPDATE auth_epoch SET value = value + 1 WHERE id = 1; END;
CREATE TRIGGER key_teams_updated AFTER UPDATE ON key_teams
BEGIN UPDATE auth_epoch SET value = value + 1 WHERE id = 1; END;
CREATE TRIGGER key_teams_deleted AFTER DELETE ON key_teams
BEGIN UPDATE auth_epoch SET value = value + 1 WHERE id = 1; END;
CREATE TRIGGER team_features_inserted AFTER INSERT ON team_features
BEGIN UPDATE auth_epoch SET value = value + 1 WHERE id = 1; END;
CREATE TRIGGER team_features_updated AFTER UPDATE ON team_features
BEGIN UPDATE auth_epoch SET value = value + 1 WHERE id = 1; END;
CREATE TRIGGER team_features_deleted AFTER DELETE ON team_features
BEGIN UPDATE auth_epoch SET value = value + 1 WHERE id = 1; END;
CREATE TRIGGER organizations_updated AFTER UPDATE ON organizations
BEGIN UPDATE auth_epoch SET value = value + 1 WHERE id = 1; END;
CREATE TRIGGER organizations_deleted AFTER DELETE ON organizations
BEGIN UPDATE auth_epoch SET value = value + 1 WHERE id = 1; END;
CREATE TRIGGER teams_updated AFTER UPDATE OF org_id ON teams
BEGIN UPDATE auth_epoch SET value = value + 1 WHERE id = 1; END;
CREATE TRIGGER teams_deleted AFTER DELETE ON teams
BEGIN UPDATE auth_epoch SET value = value + 1 WHERE id = 1; END;
