-- A team's own OAuth application at a provider, which bulk import needs. The secret is kept
-- as it was given (the service would sign in to the provider with it) and never answered.
CREATE TABLE team_credentials (
    team_id TEXT NOT NULL REFERENCES teams (id),
    provider TEXT NOT NULL,
    client_id TEXT NOT NULL,
    client_secret TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (team_id, provider)
);
