// The tables and functions of sg::postgres_store, made in the store's schema on first use.
// `@` in the text stands for the schema's quoted name and a dot. Names and values are bytea
// (every byte kept, bytewise order whatever the database's collation); tables are prefixed
// `sg_` so a schema shared with other software (LangGraph's checkpointer makes `checkpoints`)
// does not collide.
#pragma once

#include <cstdint>

namespace stategraph::detail {

inline constexpr std::int64_t postgres_schema_version = 1;

// sg_store           schema_version, the one row that says what this schema holds.
// sg_threads         one row per thread with checkpoints: its head (newest id). A put locks
//                    the row, so the writers of one thread take turns and ids stay dense.
// sg_checkpoints     one row per checkpoint; the channel list as three arrays in put order:
//                    name, version, and origin (the checkpoint that wrote the value it has,
//                    itself or an ancestor). `created`: the writer's clock, microseconds since
//                    the epoch. `nonce`: a random number the writer chose, so a put retried
//                    after a lost connection finds itself, and a cached parent is known to
//                    be the same row.
// sg_values          the values a checkpoint wrote, keyed by (thread, origin, channel);
//                    `previous` is the checkpoint whose value an appended piece extends (0:
//                    a whole value). Pruning removes checkpoint rows, and of their values only
//                    those no kept checkpoint reaches.
// sg_pending_writes  writes of nodes that succeeded in a step that failed.
inline constexpr const char* postgres_tables_sql = R"sql(
CREATE TABLE @sg_store (key text PRIMARY KEY, value bigint NOT NULL);
CREATE TABLE @sg_threads (name bytea PRIMARY KEY, head bigint NOT NULL);
CREATE TABLE @sg_checkpoints (
  thread bytea NOT NULL, id bigint NOT NULL, parent bigint NOT NULL, step bigint NOT NULL,
  source text NOT NULL, format_version integer NOT NULL, schema_hash bytea NOT NULL, metadata bytea NOT NULL,
  ch_names bytea[] NOT NULL, ch_versions bigint[] NOT NULL, ch_origins bigint[] NOT NULL,
  created bigint NOT NULL, nonce bigint NOT NULL,
  PRIMARY KEY (thread, id));
CREATE TABLE @sg_values (
  thread bytea NOT NULL, origin bigint NOT NULL, channel bytea NOT NULL, previous bigint NOT NULL,
  value bytea NOT NULL,
  PRIMARY KEY (thread, origin, channel));
CREATE TABLE @sg_pending_writes (
  thread bytea NOT NULL, checkpoint bigint NOT NULL, task bytea NOT NULL, idx integer NOT NULL,
  channel bytea NOT NULL, value bytea NOT NULL,
  PRIMARY KEY (thread, checkpoint, task, idx));

-- A put in one round trip. Refusals are raised with the store's own SQLSTATEs:
-- SGCNF (the head moved; the message is the head), SGPAR (no such parent), SGSTL (the
-- parent is not the row the writer read its channels from).
CREATE FUNCTION @sg_put(p_thread bytea, p_parent bigint, p_fork boolean, p_parent_nonce bigint, p_step bigint,
    p_source text, p_format integer, p_hash bytea, p_meta bytea, p_names bytea[], p_versions bigint[],
    p_origins bigint[], p_created bigint, p_nonce bigint, p_retry boolean, p_val_names bytea[],
    p_val_prev bigint[], p_vals bytea[]) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_head bigint;
  v_id bigint;
  v_nonce bigint;
  v_new boolean := false;
BEGIN
  IF p_retry THEN  -- an earlier attempt may have committed before its answer was lost
    SELECT id INTO v_id FROM @sg_checkpoints WHERE thread = p_thread AND nonce = p_nonce;
    IF FOUND THEN RETURN v_id; END IF;
  END IF;
  SELECT head INTO v_head FROM @sg_threads WHERE name = p_thread FOR UPDATE;
  IF NOT FOUND THEN
    v_head := 0;
    v_new := true;
  END IF;
  IF NOT p_fork AND p_parent <> v_head THEN
    IF p_parent <> 0 AND NOT EXISTS (SELECT 1 FROM @sg_checkpoints WHERE thread = p_thread AND id = p_parent) THEN
      RAISE EXCEPTION 'missing parent' USING ERRCODE = 'SGPAR';
    END IF;
    RAISE EXCEPTION '%', v_head USING ERRCODE = 'SGCNF';
  END IF;
  IF p_parent <> 0 THEN
    SELECT nonce INTO v_nonce FROM @sg_checkpoints WHERE thread = p_thread AND id = p_parent;
    IF NOT FOUND THEN RAISE EXCEPTION 'missing parent' USING ERRCODE = 'SGPAR'; END IF;
    IF v_nonce <> p_parent_nonce THEN RAISE EXCEPTION 'stale parent' USING ERRCODE = 'SGSTL'; END IF;
  END IF;
  v_id := v_head + 1;
  IF v_new THEN
    INSERT INTO @sg_threads (name, head) VALUES (p_thread, v_id);
  ELSE
    UPDATE @sg_threads SET head = v_id WHERE name = p_thread;
  END IF;
  INSERT INTO @sg_checkpoints VALUES (p_thread, v_id, p_parent, p_step, p_source, p_format, p_hash, p_meta,
    p_names, p_versions,
    ARRAY(SELECT CASE WHEN o = 0 THEN v_id ELSE o END FROM unnest(p_origins) WITH ORDINALITY AS u(o, n) ORDER BY n),
    p_created, p_nonce);
  INSERT INTO @sg_values (thread, origin, channel, previous, value)
    SELECT p_thread, v_id, n, pr, v FROM unnest(p_val_names, p_val_prev, p_vals) AS u(n, pr, v);
  RETURN v_id;
END $$;

-- SGCKP: no such checkpoint; SGCNF: it is not the head (the message is the head).
CREATE FUNCTION @sg_put_writes(p_thread bytea, p_checkpoint bigint, p_tasks bytea[], p_idx integer[],
    p_channels bytea[], p_values bytea[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_head bigint;
BEGIN
  SELECT head INTO v_head FROM @sg_threads WHERE name = p_thread FOR SHARE;
  IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM @sg_checkpoints WHERE thread = p_thread AND id = p_checkpoint) THEN
    RAISE EXCEPTION 'missing checkpoint' USING ERRCODE = 'SGCKP';
  END IF;
  IF p_checkpoint <> v_head THEN RAISE EXCEPTION '%', v_head USING ERRCODE = 'SGCNF'; END IF;
  -- The first write of a (task, index) wins, in this call and across calls.
  INSERT INTO @sg_pending_writes
    SELECT p_thread, p_checkpoint, t, i, c, v FROM unnest(p_tasks, p_idx, p_channels, p_values)
      WITH ORDINALITY AS u(t, i, c, v, n) ORDER BY n
    ON CONFLICT DO NOTHING;
END $$;

-- Each statement after the lock sees every put that committed before it was taken.
CREATE FUNCTION @sg_delete_thread(p_thread bytea) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM @sg_threads WHERE name = p_thread FOR UPDATE;
  IF NOT FOUND THEN RETURN false; END IF;
  DELETE FROM @sg_pending_writes WHERE thread = p_thread;
  DELETE FROM @sg_values WHERE thread = p_thread;
  DELETE FROM @sg_checkpoints WHERE thread = p_thread;
  DELETE FROM @sg_threads WHERE name = p_thread;
  RETURN true;
END $$;

-- Keeps the head and either the newest p_keep checkpoints (at least 1) or those put at or
-- after p_since; returns how many checkpoints went.
CREATE FUNCTION @sg_prune(p_thread bytea, p_keep bigint, p_since bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_head bigint;
  v_first bigint;
  v_cut bigint;
  v_removed bigint;
BEGIN
  SELECT head INTO v_head FROM @sg_threads WHERE name = p_thread FOR UPDATE;
  IF NOT FOUND THEN RETURN 0; END IF;
  SELECT min(id) INTO v_first FROM @sg_checkpoints WHERE thread = p_thread;
  IF p_keep IS NOT NULL THEN
    v_cut := greatest(v_first, v_head - greatest(p_keep, 1) + 1);
  ELSE
    SELECT max(id) INTO v_cut FROM @sg_checkpoints WHERE thread = p_thread AND created < p_since;
    v_cut := CASE WHEN v_cut IS NULL THEN v_first ELSE least(v_cut + 1, v_head) END;
  END IF;
  IF v_cut <= v_first THEN RETURN 0; END IF;
  -- The values the kept checkpoints reach: their channels' origins, and the pieces those extend.
  WITH RECURSIVE needed(origin, channel) AS (
    SELECT u.o, u.n FROM @sg_checkpoints c, unnest(c.ch_names, c.ch_origins) AS u(n, o)
      WHERE c.thread = p_thread AND c.id >= v_cut
    UNION
    SELECT v.previous, v.channel FROM needed JOIN @sg_values v
      ON v.thread = p_thread AND v.origin = needed.origin AND v.channel = needed.channel
      WHERE v.previous <> 0 AND v.previous < v.origin)
  DELETE FROM @sg_values v WHERE v.thread = p_thread AND v.origin < v_cut
    AND NOT EXISTS (SELECT 1 FROM needed n WHERE n.origin = v.origin AND n.channel = v.channel);
  DELETE FROM @sg_checkpoints WHERE thread = p_thread AND id < v_cut;
  GET DIAGNOSTICS v_removed = ROW_COUNT;
  DELETE FROM @sg_pending_writes WHERE thread = p_thread AND checkpoint < v_cut;
  RETURN v_removed;
END $$;

-- Removes whole every thread whose head was put before p_before; returns how many.
CREATE FUNCTION @sg_prune_threads(p_before bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  v_names bytea[];
BEGIN
  SELECT coalesce(array_agg(name), '{}') INTO v_names FROM (
    SELECT t.name FROM @sg_threads t JOIN @sg_checkpoints c ON c.thread = t.name AND c.id = t.head
      WHERE c.created < p_before FOR UPDATE OF t) AS idle;
  DELETE FROM @sg_pending_writes WHERE thread = ANY (v_names);
  DELETE FROM @sg_values WHERE thread = ANY (v_names);
  DELETE FROM @sg_checkpoints WHERE thread = ANY (v_names);
  DELETE FROM @sg_threads WHERE name = ANY (v_names);
  RETURN cardinality(v_names);
END $$;

INSERT INTO @sg_store VALUES ('schema_version', 1);
)sql";

// sg_graphs          a graph's description (JSON the runtime wrote), once per key; kept while
//                    a thread refers to it (deleting and pruning threads remove the others).
// sg_thread_graphs   which graph each thread runs; indexed by graph, so that removal finds
//                    whether a description is still used without reading every thread. All
//                    are made when missing, so a schema made before them gains them on
//                    opening; builds that predate them ignore them.
inline constexpr const char* postgres_graph_tables_sql = R"sql(
CREATE TABLE IF NOT EXISTS @sg_graphs (key bytea PRIMARY KEY, description bytea NOT NULL);
CREATE TABLE IF NOT EXISTS @sg_thread_graphs (thread bytea PRIMARY KEY, graph bytea NOT NULL);
CREATE INDEX IF NOT EXISTS sg_thread_graphs_by_graph ON @sg_thread_graphs (graph);
)sql";

// A checkpoint and its channels' values in one statement (one snapshot): the header
// columns, then per channel (in put order) its pieces, the whole value first. `%` stands for
// the id: a parameter, or the thread's head. A channel whose origin holds no value yields
// no row (the runtime then names the channel its checkpoint lacks).
inline constexpr const char* postgres_read_sql = R"sql(
WITH RECURSIVE c AS (
  SELECT id, parent, step, source, format_version, schema_hash, metadata, ch_names, ch_versions, ch_origins
  FROM @sg_checkpoints WHERE thread = $1 AND id = %),
ch AS (
  SELECT u.n AS pos, u.name, u.version, u.origin
  FROM c, unnest(c.ch_names, c.ch_versions, c.ch_origins) WITH ORDINALITY AS u(name, version, origin, n)),
p AS (
  SELECT ch.pos, 0 AS depth, v.origin, v.previous, v.value
  FROM ch JOIN @sg_values v ON v.thread = $1 AND v.origin = ch.origin AND v.channel = ch.name
  UNION ALL
  SELECT p.pos, p.depth + 1, v.origin, v.previous, v.value
  FROM p JOIN ch ON ch.pos = p.pos
  JOIN @sg_values v ON v.thread = $1 AND v.origin = p.previous AND v.channel = ch.name
  WHERE p.previous <> 0 AND p.previous < p.origin)
SELECT c.id, c.parent, c.step, c.source, c.format_version, c.schema_hash, c.metadata,
  x.pos, x.name, x.version, x.depth, x.previous, x.value
FROM c LEFT JOIN (SELECT ch.pos, ch.name, ch.version, p.depth, p.previous, p.value
                  FROM ch JOIN p ON p.pos = ch.pos) AS x ON true
ORDER BY x.pos, x.depth DESC
)sql";

}  // namespace stategraph::detail
