-- A counter every change to what a credential or gate means moves on, in the transaction
-- of the change: each process caches principals and gates, and drops them when it reads a
-- new value here (at most a second after the change). Triggers move it, so no writer can
-- forget to. A new key needs no move: nothing of it can be cached before it exists.
CREATE TABLE auth_epoch (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    value BIGINT NOT NULL
);
INSERT INTO auth_epoch (id, value) VALUES (1, 0);

CREATE FUNCTION auth_epoch_next() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE auth_epoch SET value = value + 1 WHERE id = 1;
    RETURN NULL;
END
$$;

CREATE TRIGGER keys_changed AFTER UPDATE OR DELETE ON keys
    FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_next();
CREATE TRIGGER key_teams_changed AFTER INSERT OR UPDATE OR DELETE ON key_teams
    FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_next();
CREATE TRIGGER team_features_changed AFTER INSERT OR UPDATE OR DELETE ON team_features
    FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_next();
CREATE TRIGGER organizations_changed AFTER UPDATE OR DELETE ON organizations
    FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_next();
CREATE TRIGGER teams_changed AFTER UPDATE OF org_id OR DELETE ON teams
    FOR EACH STATEMENT EXECUTE FUNCTION auth_epoch_next();
