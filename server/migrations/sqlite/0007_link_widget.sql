-- The hosted link widget's settings of a link token, as its request gave them: where an
-- outcome goes, which providers it offers (a JSON list of slugs), and whether errors and
-- the Close button redirect.
ALTER TABLE link_tokens ADD COLUMN redirect_url TEXT;
ALTER TABLE link_tokens ADD COLUMN filter_on_providers TEXT;
ALTER TABLE link_tokens ADD COLUMN on_error TEXT;
ALTER TABLE link_tokens ADD COLUMN on_close TEXT;
