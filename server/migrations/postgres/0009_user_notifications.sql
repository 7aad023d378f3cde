-- Every process keeps users as reads answer them; a change to a user or its connections,
-- made by any process, tells every process to drop what it kept (LISTEN/NOTIFY, delivered
-- when the change commits). Statement triggers: one notification a statement, and PostgreSQL
-- folds identical ones of one transaction into one. A new user needs none: users that do not
-- exist are never kept, so creates do not pay for the notification's commit-time lock.
CREATE FUNCTION users_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('covenant_users_changed', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER users_changed AFTER UPDATE OR DELETE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION users_changed_notify();
CREATE TRIGGER connections_changed AFTER INSERT OR UPDATE OR DELETE ON connections
    FOR EACH STATEMENT EXECUTE FUNCTION users_changed_notify();
CREATE TRIGGER providers_changed AFTER INSERT OR UPDATE OR DELETE ON providers
    FOR EACH STATEMENT EXECUTE FUNCTION users_changed_notify();
