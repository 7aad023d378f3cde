-- Refreshes: like historical pulls, one per user, provider and resource, over the user's last
-- days; a refresh emits an event for each summary and batch of samples it finds new or
-- changed, in the transaction that keeps them.
CREATE TABLE refreshes (
    seq BIGSERIAL PRIMARY KEY,
    team_id TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    resource TEXT NOT NULL,
    status TEXT NOT NULL,
    first_day TEXT NOT NULL,
    last_day TEXT NOT NULL,
    next_day TEXT NOT NULL,
    failures BIGINT NOT NULL,
    error TEXT,
    triggered_at BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    lease_until BIGINT,
    updated_at BIGINT NOT NULL,
    UNIQUE (user_id, provider, resource)
);
CREATE INDEX refreshes_due ON refreshes (status, next_attempt_at, seq);
