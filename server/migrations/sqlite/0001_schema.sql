-- The reference server's state. Identifiers are UUID text, instants are microseconds since
-- the UNIX epoch (INTEGER), booleans are 0 or 1, and stored records are JSON text: the same
-- columns on SQLite and PostgreSQL, so one set of queries serves both.

CREATE TABLE organizations (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    plan TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE teams (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations (id),
    name TEXT NOT NULL,
    -- The name in lower case (all of Unicode, which SQLite's LOWER is not), for search.
    name_folded TEXT NOT NULL,
    region TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX teams_by_org ON teams (org_id, created_at, id);

-- Closed-beta features enabled for a team: a row per enabled feature.
CREATE TABLE team_features (
    team_id TEXT NOT NULL REFERENCES teams (id),
    feature TEXT NOT NULL,
    PRIMARY KEY (team_id, feature)
);

-- Team API keys and management keys, by the SHA-256 of the key: never the key itself.
CREATE TABLE keys (
    id TEXT PRIMARY KEY,
    key_hash TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    org_id TEXT NOT NULL REFERENCES organizations (id),
    team_id TEXT REFERENCES teams (id),
    scope TEXT,
    created_at INTEGER NOT NULL
);

-- The teams a team-scoped management key controls.
CREATE TABLE key_teams (
    key_id TEXT NOT NULL REFERENCES keys (id),
    team_id TEXT NOT NULL REFERENCES teams (id),
    PRIMARY KEY (key_id, team_id)
);

-- One row once the first start has created its organization, team and keys.
CREATE TABLE bootstrap (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    org_id TEXT NOT NULL,
    team_id TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE users (
    id TEXT PRIMARY KEY,
    team_id TEXT NOT NULL REFERENCES teams (id),
    client_user_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    time_zone TEXT,
    time_zone_source TEXT,
    time_zone_updated_at INTEGER,
    birth_date TEXT,
    birth_date_source TEXT,
    birth_date_updated_at INTEGER,
    ingestion_start TEXT,
    ingestion_end TEXT,
    -- Set while the user is in the deletion grace period.
    deleted_at INTEGER,
    UNIQUE (team_id, client_user_id)
);

CREATE TABLE connections (
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, provider)
);

CREATE TABLE patient_infos (
    user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    record TEXT NOT NULL,
    zip_code TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE insurances (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    is_primary INTEGER NOT NULL,
    record TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX insurances_latest ON insurances (user_id, is_primary, seq);

-- Link tokens by the SHA-256 of the token; `used_at` makes them single use.
CREATE TABLE link_tokens (
    token_hash TEXT PRIMARY KEY,
    team_id TEXT NOT NULL REFERENCES teams (id),
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    provider TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER
);

CREATE TABLE bulk_ops (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    team_id TEXT NOT NULL REFERENCES teams (id),
    op_type TEXT NOT NULL,
    status TEXT NOT NULL,
    provider TEXT NOT NULL,
    pending INTEGER NOT NULL,
    processed INTEGER NOT NULL,
    -- The request as accepted, for the background run.
    payload TEXT NOT NULL,
    -- What the run found, once it has finished.
    result TEXT,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    -- A process running the operation holds it until then; a stopped process lets it go.
    lease_until INTEGER
);
CREATE INDEX bulk_ops_by_team ON bulk_ops (team_id, seq);

CREATE TABLE lab_orders (
    id TEXT PRIMARY KEY,
    team_id TEXT NOT NULL REFERENCES teams (id),
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    lab_test_id TEXT NOT NULL,
    lab_id INTEGER NOT NULL,
    zip_code TEXT NOT NULL,
    interpretation TEXT,
    created_at INTEGER NOT NULL
);
CREATE INDEX lab_orders_by_team ON lab_orders (team_id, created_at);

-- The catalogue, loaded from the data files the server ships; `catalogue_version` names the
-- files' digest so a start with new files reloads them.
CREATE TABLE meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE providers (
    slug TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    logo TEXT NOT NULL,
    auth_type TEXT NOT NULL,
    source_type TEXT NOT NULL,
    supported_resources TEXT NOT NULL,
    oauth TEXT
);

CREATE TABLE labs (
    id INTEGER PRIMARY KEY,
    slug TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL
);

CREATE TABLE markers (
    id INTEGER PRIMARY KEY,
    lab_id INTEGER NOT NULL REFERENCES labs (id),
    name TEXT NOT NULL,
    slug TEXT NOT NULL,
    description TEXT NOT NULL,
    provider_id TEXT NOT NULL,
    marker_type TEXT NOT NULL,
    unit TEXT,
    price TEXT NOT NULL,
    a_la_carte_enabled INTEGER NOT NULL,
    -- Lower-case name and codes (the lab's and the LOINC codes), for case-insensitive search.
    search_text TEXT NOT NULL,
    expected_results TEXT NOT NULL,
    UNIQUE (lab_id, provider_id)
);

CREATE TABLE lab_tests (
    id TEXT PRIMARY KEY,
    lab_id INTEGER NOT NULL REFERENCES labs (id),
    name TEXT NOT NULL,
    slug TEXT NOT NULL
);

CREATE TABLE lab_test_markers (
    lab_test_id TEXT NOT NULL REFERENCES lab_tests (id),
    marker_id INTEGER NOT NULL REFERENCES markers (id),
    position INTEGER NOT NULL,
    PRIMARY KEY (lab_test_id, marker_id)
);

CREATE TABLE lab_accounts (
    id TEXT PRIMARY KEY,
    lab_id INTEGER NOT NULL REFERENCES labs (id)
);

CREATE TABLE service_centers (
    site_code TEXT PRIMARY KEY,
    lab_id INTEGER NOT NULL REFERENCES labs (id),
    record TEXT NOT NULL,
    lat REAL NOT NULL,
    lng REAL NOT NULL
);

CREATE TABLE payors (
    payor_code TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    address TEXT NOT NULL
);

CREATE TABLE zip_codes (
    zip_code TEXT PRIMARY KEY,
    lat REAL NOT NULL,
    lng REAL NOT NULL
);
