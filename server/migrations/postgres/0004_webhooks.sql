-- Where a team's events go: each endpoint receives the events whose type starts with one of
-- its prefixes (every event when it names none), signed with its secret.
CREATE TABLE webhook_endpoints (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    team_id TEXT NOT NULL REFERENCES teams (id),
    url TEXT NOT NULL,
    description TEXT,
    -- JSON list of event type prefixes.
    event_types TEXT NOT NULL,
    -- JSON object of extra headers.
    headers TEXT NOT NULL,
    disabled BIGINT NOT NULL,
    secret TEXT NOT NULL,
    -- After a rotation, the secret before it signs beside the new one until `previous_until`.
    previous_secret TEXT,
    previous_until BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX webhook_endpoints_by_team ON webhook_endpoints (team_id, seq);

-- The outbox: every event, written in the transaction of what caused it, as it is delivered.
CREATE TABLE events (
    seq BIGSERIAL PRIMARY KEY,
    -- The `webhook-id` of each delivery of the event.
    id TEXT NOT NULL UNIQUE,
    team_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    body TEXT NOT NULL,
    emitted_at BIGINT NOT NULL
);

-- One event owed to one endpoint, written with the event.
CREATE TABLE deliveries (
    seq BIGSERIAL PRIMARY KEY,
    event_seq BIGINT NOT NULL REFERENCES events (seq) ON DELETE CASCADE,
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL,
    -- pending, delivered or failed.
    status TEXT NOT NULL,
    attempts BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    -- A process sending the event holds it until then; a stopped process lets it go.
    lease_until BIGINT
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at, seq);
CREATE INDEX deliveries_in_order ON deliveries (endpoint_id, user_id, status, seq);

-- Every try to deliver, for the endpoint's attempt listing.
CREATE TABLE delivery_attempts (
    seq BIGSERIAL PRIMARY KEY,
    delivery_seq BIGINT NOT NULL REFERENCES deliveries (seq) ON DELETE CASCADE,
    endpoint_id TEXT NOT NULL,
    attempt BIGINT NOT NULL,
    attempted_at BIGINT NOT NULL,
    status_code BIGINT,
    error TEXT,
    duration_ms BIGINT NOT NULL,
    -- delivered, retrying or failed: where the delivery stood after this try.
    delivery TEXT NOT NULL
);
CREATE INDEX delivery_attempts_by_endpoint ON delivery_attempts (endpoint_id, seq);
