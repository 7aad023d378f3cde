-- What a bulk operation did for each user it names, written batch by batch with the
-- operation's progress, so a run resumed after a crash goes on where the last batch ended.
CREATE TABLE bulk_op_items (
    op_id TEXT NOT NULL REFERENCES bulk_ops (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    user_id TEXT NOT NULL,
    succeeded INTEGER NOT NULL,
    PRIMARY KEY (op_id, position)
);
