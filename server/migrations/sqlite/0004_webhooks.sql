-- Where a team's events go: each endpoint receives the events whose type starts with one of
-- its prefixes (every event when it names none), signed with its secret.
CREATE TABLE webhook_endpoints (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    team_id TEXT NOT NULL REFERENCES teams (id),
    url TEXT NOT NULL,
    description TEXT,
    -- JSON list of event type prefixes.
    event_types TEXT NOT NULL,
    -- JSON object of extra headers.
    headers TEXT NOT NULL,
    disabled INTEGER NOT NULL,
    secret TEXT NOT NULL,
    -- After a rotation, the secret before it signs beside the new one until `previous_until`.
    previous_secret TEXT,
    previous_until INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX webhook_endpoints_by_team ON webhook_endpoints (team_id, seq);

-- The outbox: every event, written in the transaction of what caused it, as it is delivered.
CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    -- The `webhook-id` of each delivery of the event.
    id TEXT NOT NULL UNIQUE,
    team_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    body TEXT NOT NULL,
    emitted_at INTEGER NOT NULL
);

-- One event owed to one endpoint, written with the event.
CREATE TABLE deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    event_seq INTEGER NOT NULL REFERENCES events (seq) ON DELETE CASCADE,
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL,
    -- pending, delivered or failed.
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    -- A process sending the event holds it until then; a stopped process lets it go.
    lease_until INTEGER
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at, seq);
CREATE INDEX deliveries_in_order ON deliveries (endpoint_id, user_id, status, seq);

-- Every try to deliver, for the endpoint's attempt listing.
CREATE TABLE delivery_attempts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_seq INTEGER NOT NULL REFERENCES deliveries (seq) ON DELETE CASCADE,
    endpoint_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    attempted_at INTEGER NOT NULL,
    status_code INTEGER,
    error TEXT,
    duration_ms INTEGER NOT NULL,
    -- delivered, retrying or failed: where the delivery stood after this try.
    delivery TEXT NOT NULL
);
CREATE INDEX delivery_attempts_by_endpoint ON delivery_attempts (endpoint_id, seq);
