-- Historical pulls: one per user, provider and resource, fetched a few days at a time by the
-- pull workers; where each stands is its status (queued, in_progress, retrying, success,
-- failed) and the next day to fetch.
CREATE TABLE pulls (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    team_id TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    resource TEXT NOT NULL,
    status TEXT NOT NULL,
    -- The days to fetch (YYYY-MM-DD, in the user's time zone), and the next one.
    first_day TEXT NOT NULL,
    last_day TEXT NOT NULL,
    next_day TEXT NOT NULL,
    -- Tries of `next_day` that failed for a while, in a row.
    failures INTEGER NOT NULL,
    error TEXT,
    triggered_at INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    -- A process fetching holds the pull until then; a stopped process lets it go.
    lease_until INTEGER,
    updated_at INTEGER NOT NULL,
    UNIQUE (user_id, provider, resource)
);
CREATE INDEX pulls_due ON pulls (status, next_attempt_at, seq);
CREATE INDEX pulls_by_provider ON pulls (team_id, provider, triggered_at);

-- Summaries as providers report them: the latest version of an id replaces the others.
CREATE TABLE summaries (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    resource TEXT NOT NULL,
    calendar_date TEXT NOT NULL,
    body TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX summaries_by_user ON summaries (user_id, resource, calendar_date);

-- Timeseries samples: the latest value for a resource, provider, source type and instant
-- replaces the others.
CREATE TABLE samples (
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    resource TEXT NOT NULL,
    provider TEXT NOT NULL,
    source_type TEXT NOT NULL,
    at INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (user_id, resource, provider, source_type, at)
);
