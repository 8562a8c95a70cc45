// sg::postgres_queue and sg::serve: a run queue in the PostgreSQL database of a
// sg::postgres_store, and workers that take runs from it. A run is a row: a producer submits
// it, any worker process on any machine claims it (SELECT ... FOR UPDATE SKIP LOCKED), holds
// a lease it renews by heartbeat, runs the thread through its checkpointed app and records
// the outcome. A worker that dies leaves its lease to expire; another claims the run and
// continues the thread from its last checkpoint. Needs libpq and nlohmann_json (the inputs
// and results are JSON, as in the checkpoints). docs/scale-out.md describes the model.
#pragma once

#include <stategraph/checkpoint.hpp>
#include <stategraph/store/postgres.hpp>

#include <libpq-fe.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace stategraph {

// pending: waiting for a worker; running: a worker holds its lease; the rest are final.
// interrupted: the run paused (an interrupt, static or dynamic): submit a resume run.
// refused: a worker saw it was submitted for another graph (state schema) and did not run it.
enum class run_status { pending, running, done, interrupted, failed, cancelled, refused };

inline std::string_view to_string(run_status s) noexcept {
  constexpr std::string_view names[] = {"pending", "running", "done", "interrupted", "failed", "cancelled", "refused"};
  return names[static_cast<int>(s)];
}
inline std::optional<run_status> parse_run_status(std::string_view s) noexcept {
  for (int i = 0; i <= static_cast<int>(run_status::refused); ++i)
    if (to_string(static_cast<run_status>(i)) == s) return static_cast<run_status>(i);
  return std::nullopt;
}
constexpr bool is_final(run_status s) noexcept { return s != run_status::pending && s != run_status::running; }

// What a run does when claimed: apply an input and run (submit), continue the thread
// (submit_resume), or answer its pending interrupts (submit_resume with sg::answers).
enum class run_kind { invoke, resume, answers };

struct run_info {
  std::int64_t id = 0;
  std::string thread;
  run_kind kind = run_kind::invoke;
  run_status status = run_status::pending;
  int attempts = 0;         // claims so far (a second one: a worker died or lost its lease)
  int failures = 0;         // attempts that ended in an exception and were given back to the queue
  std::string worker;       // the last worker that claimed it
  bool cancel_requested = false;
  std::string error;        // failed or refused: why; otherwise the last failure given back, if any
  std::string result;       // done or interrupted: the thread's state as JSON (read it with state_from_json)
  std::string interrupts;   // interrupted: the pending interrupts as a JSON array of {id, node, payload}
  std::int64_t checkpoint = no_checkpoint;  // done or interrupted: the thread's head
  std::chrono::system_clock::time_point submitted{}, started{}, finished{};
};

// One thing that happened to a run, in order (seq 1, 2, ...). kind: "claimed", "node" (a
// node finished: {"step", "node", "channels"}), "checkpoint" ({"id", "step"}), "retry", and
// the final status's name. data: JSON text.
struct run_event {
  std::int64_t seq = 0;
  int attempt = 0;
  std::string kind;
  std::string data;
  std::chrono::system_clock::time_point at{};
};

// A run id the queue does not hold.
class run_not_found_error : public store_error {
 public:
  explicit run_not_found_error(std::int64_t run)
      : store_error("stategraph: the run queue holds no run " + std::to_string(run)), run_(run) {}
  std::int64_t run() const noexcept { return run_; }

 private:
  std::int64_t run_;
};

// A state as one JSON object, a channel per member (the codec of the checkpoints): what a
// submitted input and a recorded result are.
template <class S>
std::string state_to_json(const S& state) {
  nlohmann::json out = nlohmann::json::object();
  detail::for_each_index<channel_count<S>>([&]<std::size_t I>() {
    using F = field_type_t<S, I>;
    out[std::string(channel_name_at<S, I>())] = detail::json_document(channel_traits<F>::value(detail::field<I>(state)));
  });
  return out.dump();
}
// The inverse; a channel the text does not name keeps its default. Malformed text or a value
// that does not fit is a checkpoint_error.
template <class S>
S state_from_json(std::string_view text) {
  const auto j = detail::parse_or_throw(text, "a queued state");
  if (!j.is_object()) throw checkpoint_error("stategraph: a queued state is not a JSON object");
  S out{};
  detail::for_each_index<channel_count<S>>([&]<std::size_t I>() {
    using F = field_type_t<S, I>;
    using V = typename channel_traits<F>::value_type;
    constexpr std::string_view name = channel_name_at<S, I>();
    if (auto it = j.find(std::string(name)); it != j.end())
      channel_traits<F>::value(detail::field<I>(out)) = detail::decode_value<V>(*it, name);
  });
  return out;
}

namespace detail {

inline constexpr std::int64_t postgres_queue_version = 1;

// sg_queue       queue_version, as sg_store says the store's schema version.
// sg_runs        one row per run. `graph`: the schema hash of the submitted input's state
//                (empty for resume runs: the checkpoints carry it). `base`: the thread's head
//                when the run was first claimed; a later claim that finds the head beyond it
//                knows the run's input was committed and continues instead of applying it again.
// sg_run_events  what the workers reported, per run in order.
inline constexpr const char* postgres_queue_sql = R"sql(
CREATE TABLE @sg_queue (key text PRIMARY KEY, value bigint NOT NULL);
CREATE TABLE @sg_runs (
  id bigserial PRIMARY KEY, thread bytea NOT NULL, kind text NOT NULL, input text NOT NULL, graph text NOT NULL,
  status text NOT NULL DEFAULT 'pending', base bigint, attempts integer NOT NULL DEFAULT 0,
  failures integer NOT NULL DEFAULT 0, worker text NOT NULL DEFAULT '', lease_until timestamptz,
  cancel_requested boolean NOT NULL DEFAULT false, error text NOT NULL DEFAULT '', result text NOT NULL DEFAULT '',
  interrupts text NOT NULL DEFAULT '', checkpoint bigint NOT NULL DEFAULT 0,
  submitted timestamptz NOT NULL DEFAULT clock_timestamp(), started timestamptz, finished timestamptz);
CREATE INDEX ON @sg_runs (thread, id) WHERE status IN ('pending', 'running');
CREATE INDEX ON @sg_runs (status, id);
CREATE TABLE @sg_run_events (
  run bigint NOT NULL, seq bigint NOT NULL, attempt integer NOT NULL, kind text NOT NULL, data text NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp(), PRIMARY KEY (run, seq));
INSERT INTO @sg_queue VALUES ('queue_version', 1);
)sql";

inline std::int64_t pg_micros_of(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch()).count();
}
inline std::chrono::system_clock::time_point pg_time_of(std::int64_t micros) {
  return std::chrono::system_clock::time_point(std::chrono::microseconds(micros));
}

}  // namespace detail

// A run as a worker holds it.
struct claimed_run {
  std::int64_t id = 0;
  std::string thread;
  run_kind kind = run_kind::invoke;
  std::string input, graph;
  std::int64_t base = no_checkpoint;
  int attempt = 0;
  bool cancel_requested = false;
};

class postgres_queue {
 public:
  static constexpr std::int64_t schema_version = detail::postgres_queue_version;

  // Opens the queue in `options.schema` (its tables made on first use beside the store's,
  // which it makes too if missing); a queue of another version throws store_format_error.
  explicit postgres_queue(std::string conninfo, postgres_options options = {})
      : options_(std::move(options)),
        target_(detail::pg_target(conninfo)),
        pool_(conninfo, options_.pool_size, {}),
        conninfo_(std::move(conninfo)) {
    std::string q = "\"";
    for (char c : options_.schema) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    prefix_ = q + "\".";
    { postgres_store store(conninfo_, options_); }  // the store's tables: the claim reads sg_threads
    open_schema();
  }
  postgres_queue(const postgres_queue&) = delete;
  postgres_queue& operator=(const postgres_queue&) = delete;

  const std::string& conninfo() const noexcept { return conninfo_; }
  const postgres_options& options() const noexcept { return options_; }

  // A run that applies `input` to the thread through the reducers and runs the graph (as
  // app.invoke(input, thread)). Only a worker whose state has the same schema runs it.
  template <class S>
  std::int64_t submit(const thread_id& thread, const S& input) {
    return insert(thread, run_kind::invoke, state_to_json(input), detail::schema_hash_text<S>());
  }
  // A run that continues the thread (app.resume(thread)): after a static interrupt or a failed run.
  std::int64_t submit_resume(const thread_id& thread) { return insert(thread, run_kind::resume, "[]", ""); }
  // A run that answers the thread's pending interrupts by id (app.resume(thread, answers)).
  std::int64_t submit_resume(const thread_id& thread, const answers& given) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& a : given.list()) list.push_back({a.id, a.value});
    return insert(thread, run_kind::answers, list.dump(), "");
  }

  // A pending run is cancelled at once (true). A running one is asked to stop (true): its
  // worker stops it at its next checkpoint and records it cancelled. A final one: false.
  bool cancel(std::int64_t run) {
    detail::pg_params p;
    p.int8(run);
    auto r = exec(
        "WITH c AS (UPDATE @sg_runs SET status = CASE WHEN status = 'pending' THEN 'cancelled' ELSE status END,"
        " cancel_requested = true, finished = CASE WHEN status = 'pending' THEN clock_timestamp() ELSE finished END"
        " WHERE id = $1 AND status IN ('pending', 'running') RETURNING id)"
        " SELECT (SELECT count(*) FROM c), (SELECT count(*) FROM @sg_runs WHERE id = $1)",
        p, "cancelling a run");
    if (r.integer(0, 1) == 0) throw run_not_found_error(run);
    return r.integer(0, 0) == 1;
  }

  run_info get(std::int64_t run) const {
    detail::pg_params p;
    p.int8(run);
    auto r = exec("SELECT " + columns() + " FROM @sg_runs WHERE id = $1", p, "reading a run");
    if (r.rows() == 0) throw run_not_found_error(run);
    return info(r, 0);
  }
  // Polls until the run is final or `timeout` passed; returns it as it then is.
  run_info wait(std::int64_t run, std::chrono::milliseconds timeout = std::chrono::minutes(10)) const {
    const auto until = std::chrono::steady_clock::now() + timeout;
    auto pause = std::chrono::milliseconds(1);
    for (;;) {
      auto i = get(run);
      if (is_final(i.status) || std::chrono::steady_clock::now() >= until) return i;
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(50));
    }
  }
  // Oldest first.
  std::vector<run_info> list(run_status status, std::size_t limit = 1000) const {
    detail::pg_params p;
    p.text(to_string(status)).int8(static_cast<std::int64_t>(limit));
    auto r = exec("SELECT " + columns() + " FROM @sg_runs WHERE status = $1 ORDER BY id LIMIT $2", p, "listing runs");
    std::vector<run_info> out;
    for (int i = 0; i < r.rows(); ++i) out.push_back(info(r, i));
    return out;
  }
  std::vector<run_info> list_thread(const thread_id& thread) const {
    detail::pg_params p;
    p.bytes(thread.value);
    auto r = exec("SELECT " + columns() + " FROM @sg_runs WHERE thread = $1 ORDER BY id", p, "listing runs");
    std::vector<run_info> out;
    for (int i = 0; i < r.rows(); ++i) out.push_back(info(r, i));
    return out;
  }
  // The run's events after `after` (0: from the first); any process may read them while the
  // run goes on, polling with the last seq it saw.
  std::vector<run_event> events(std::int64_t run, std::int64_t after = 0) const {
    detail::pg_params p;
    p.int8(run).int8(after);
    auto r = exec(
        "SELECT seq, attempt, kind, data, (extract(epoch FROM at) * 1000000)::bigint FROM @sg_run_events"
        " WHERE run = $1 AND seq > $2 ORDER BY seq",
        p, "reading run events");
    std::vector<run_event> out;
    for (int i = 0; i < r.rows(); ++i)
      out.push_back({r.integer(i, 0), static_cast<int>(r.integer(i, 1)), std::string(r.bytes(i, 2)),
                     std::string(r.bytes(i, 3)), detail::pg_time_of(r.integer(i, 4))});
    return out;
  }
  // Runs not yet final (what a worker that serves until idle waits for).
  std::int64_t unfinished() const {
    detail::pg_params p;
    return exec("SELECT count(*) FROM @sg_runs WHERE status IN ('pending', 'running')", p, "counting runs")
        .integer(0, 0);
  }

  // Removes the final runs (done, interrupted, failed, cancelled, refused) that finished
  // before `rule`'s time, with their events; returns how many runs went. Pending and
  // running runs stay whatever their age. The threads' checkpoints are the store's
  // (postgres_store::prune_threads).
  std::size_t prune(older_than rule) {
    detail::pg_params p;
    p.int8(detail::pg_micros_of(rule.time));
    auto r = exec(
        "WITH gone AS (DELETE FROM @sg_runs WHERE status NOT IN ('pending', 'running')"
        " AND finished < to_timestamp($1::bigint / 1000000.0) RETURNING id),"
        " events AS (DELETE FROM @sg_run_events e USING gone WHERE e.run = gone.id)"
        " SELECT count(*) FROM gone",
        p, "pruning runs");
    return static_cast<std::size_t>(r.integer(0, 0));
  }

  // ---- the workers' side (sg::serve) ------------------------------------------------------

  // Claims a run whose lease expired, else the oldest pending run whose thread has no older
  // run not yet final (a thread's runs go in order, one at a time). Each branch walks the
  // (status, id) index and stops at its first row: one query over both statuses sorted every
  // candidate, and on a table without statistics the planner probed each against all others.
  std::optional<claimed_run> claim(std::string_view worker, std::chrono::milliseconds lease) {
    detail::pg_params p;
    p.text(worker).int8(lease.count());
    auto r = exec(
        "UPDATE @sg_runs r SET status = 'running', worker = $1, attempts = r.attempts + 1,"
        " lease_until = clock_timestamp() + $2 * interval '1 millisecond',"
        " started = coalesce(r.started, clock_timestamp()),"
        " base = coalesce(r.base, (SELECT head FROM @sg_threads WHERE name = r.thread), 0)"
        " WHERE r.id = coalesce((SELECT c.id FROM @sg_runs c WHERE c.status = 'running'"
        " AND c.lease_until < clock_timestamp() ORDER BY c.id LIMIT 1 FOR UPDATE OF c SKIP LOCKED),"
        " (SELECT c.id FROM @sg_runs c WHERE c.status = 'pending' AND NOT EXISTS (SELECT 1 FROM @sg_runs e"
        " WHERE e.thread = c.thread AND e.id < c.id AND e.status IN ('pending', 'running'))"
        " ORDER BY c.id LIMIT 1 FOR UPDATE OF c SKIP LOCKED))"
        " AND r.status IN ('pending', 'running')"
        " RETURNING r.id, r.thread, r.kind, r.input, r.graph, r.base, r.attempts, r.cancel_requested",
        p, "claiming a run", hot::claim);
    if (r.rows() == 0) return std::nullopt;
    return claimed_run{r.integer(0, 0), std::string(r.bytes(0, 1)), kind_of(r.bytes(0, 2)),
                       std::string(r.bytes(0, 3)), std::string(r.bytes(0, 4)), r.integer(0, 5),
                       static_cast<int>(r.integer(0, 6)), r.boolean(0, 7)};
  }
  // Renews the leases of the runs this worker holds; returns those it still holds, each with
  // whether a cancel was asked.
  std::vector<std::pair<std::int64_t, bool>> heartbeat(std::string_view worker, const std::vector<std::int64_t>& runs,
                                                       std::chrono::milliseconds lease) {
    detail::pg_params p;
    p.text(worker).int8(lease.count());
    p.array(detail::pg_type::int8_array, detail::pg_type::int8, runs.size(), [&](std::string& out, std::size_t i) {
      detail::pg_put_be(out, static_cast<std::uint64_t>(runs[i]), 8);
    });
    auto r = exec(
        "UPDATE @sg_runs SET lease_until = clock_timestamp() + $2 * interval '1 millisecond'"
        " WHERE id = ANY ($3) AND worker = $1 AND status = 'running' RETURNING id, cancel_requested",
        p, "renewing leases", hot::heartbeat);
    std::vector<std::pair<std::int64_t, bool>> out;
    for (int i = 0; i < r.rows(); ++i) out.emplace_back(r.integer(i, 0), r.boolean(i, 1));
    return out;
  }
  // Records the outcome of this worker's attempt; false if the run is no longer its own
  // (its lease expired and another worker claimed it): nothing was written then.
  bool finish(const claimed_run& run, std::string_view worker, run_status status, std::string_view result,
              std::string_view interrupts, std::int64_t checkpoint, std::string_view error) {
    detail::pg_params p;
    p.int8(run.id).text(worker).int4(run.attempt).text(to_string(status)).text(result).text(interrupts)
        .int8(checkpoint).text(error);
    auto r = exec(
        "WITH f AS (UPDATE @sg_runs SET status = $4, result = $5, interrupts = $6, checkpoint = $7,"
        " error = CASE WHEN $8 = '' THEN error ELSE $8 END,"
        " finished = clock_timestamp(), lease_until = NULL WHERE id = $1 AND worker = $2 AND attempts = $3"
        " AND status = 'running' RETURNING id)"
        " INSERT INTO @sg_run_events (run, seq, attempt, kind, data)"
        " SELECT $1, coalesce((SELECT max(seq) FROM @sg_run_events WHERE run = $1), 0) + 1, $3, $4,"
        " json_build_object('checkpoint', $7::bigint, 'error', $8::text)::text FROM f RETURNING seq",
        p, "recording a run's outcome", hot::finish);
    return r.rows() == 1;
  }
  // Gives the run back to the queue after a failed attempt (it will be claimed again).
  bool give_back(const claimed_run& run, std::string_view worker, std::string_view error) {
    detail::pg_params p;
    p.int8(run.id).text(worker).int4(run.attempt).text(error);
    auto r = exec(
        "WITH f AS (UPDATE @sg_runs SET status = 'pending', failures = failures + 1, error = $4, lease_until = NULL,"
        " worker = '' WHERE id = $1 AND worker = $2 AND attempts = $3 AND status = 'running' RETURNING id)"
        " INSERT INTO @sg_run_events (run, seq, attempt, kind, data)"
        " SELECT $1, coalesce((SELECT max(seq) FROM @sg_run_events WHERE run = $1), 0) + 1, $3, 'retry',"
        " json_build_object('error', $4::text)::text FROM f RETURNING seq",
        p, "giving a run back", hot::give_back);
    return r.rows() == 1;
  }
  int failures(std::int64_t run) const {
    detail::pg_params p;
    p.int8(run);
    auto r = exec("SELECT failures FROM @sg_runs WHERE id = $1", p, "reading a run");
    return r.rows() == 0 ? 0 : static_cast<int>(r.integer(0, 0));
  }
  // Appends an event to a run this worker holds; false (nothing written) if it no longer
  // holds it.
  bool record(const claimed_run& run, std::string_view worker, std::string_view kind, std::string_view data) {
    detail::pg_params p;
    p.int8(run.id).text(worker).int4(run.attempt).text(kind).text(data);
    return exec("INSERT INTO @sg_run_events (run, seq, attempt, kind, data)"
                " SELECT $1, coalesce((SELECT max(seq) FROM @sg_run_events WHERE run = $1), 0) + 1, $3, $4, $5"
                " FROM @sg_runs WHERE id = $1 AND worker = $2 AND attempts = $3 AND status = 'running'"
                " RETURNING seq",
                p, "recording a run event", hot::record)
               .rows() == 1;
  }

 private:
  struct transient {
    std::string message;
  };

  static run_kind kind_of(std::string_view s) {
    return s == "resume" ? run_kind::resume : s == "answers" ? run_kind::answers : run_kind::invoke;
  }
  static std::string_view kind_name(run_kind k) {
    return k == run_kind::resume ? "resume" : k == run_kind::answers ? "answers" : "invoke";
  }

  std::int64_t insert(const thread_id& thread, run_kind kind, const std::string& input, std::string_view graph) {
    if (thread.value.empty())
      throw store_refused_error("stategraph: a run needs a thread id; the empty id was refused and nothing queued");
    detail::pg_params p;
    p.bytes(thread.value).text(kind_name(kind)).text(input).text(graph);
    return exec("INSERT INTO @sg_runs (thread, kind, input, graph) VALUES ($1, $2, $3, $4) RETURNING id", p,
                "submitting a run")
        .integer(0, 0);
  }

  static std::string columns() {
    return "id, thread, kind, status, attempts, failures, worker, cancel_requested, error, result, interrupts,"
           " checkpoint, coalesce((extract(epoch FROM submitted) * 1000000)::bigint, 0),"
           " coalesce((extract(epoch FROM started) * 1000000)::bigint, 0),"
           " coalesce((extract(epoch FROM finished) * 1000000)::bigint, 0)";
  }
  run_info info(const detail::pg_result& r, int i) const {
    run_info out;
    out.id = r.integer(i, 0);
    out.thread = std::string(r.bytes(i, 1));
    out.kind = kind_of(r.bytes(i, 2));
    const auto status = parse_run_status(r.bytes(i, 3));
    if (!status)
      throw store_format_error("stategraph: run queue at " + target_ + ": run " + std::to_string(out.id) +
                               " has an unknown status '" + std::string(r.bytes(i, 3)) + "'");
    out.status = *status;
    out.attempts = static_cast<int>(r.integer(i, 4));
    out.failures = static_cast<int>(r.integer(i, 5));
    out.worker = std::string(r.bytes(i, 6));
    out.cancel_requested = r.boolean(i, 7);
    out.error = std::string(r.bytes(i, 8));
    out.result = std::string(r.bytes(i, 9));
    out.interrupts = std::string(r.bytes(i, 10));
    out.checkpoint = r.integer(i, 11);
    out.submitted = detail::pg_time_of(r.integer(i, 12));
    out.started = detail::pg_time_of(r.integer(i, 13));
    out.finished = detail::pg_time_of(r.integer(i, 14));
    return out;
  }

  std::string with_prefix(std::string sql) const {
    for (std::size_t at = sql.find('@'); at != std::string::npos; at = sql.find('@', at + prefix_.size()))
      sql.replace(at, 1, prefix_);
    return sql;
  }

  // The statements a worker runs for every step or run, prepared once per connection: parsing
  // and planning them again each time was a large share of the server's work per step.
  enum class hot : int { claim, heartbeat, finish, give_back, record, none };

  // One statement with bound parameters; a lost connection or a serialization failure is
  // tried again (max_retries), then postgres_transient_error.
  detail::pg_result exec(const std::string& sql_text, const detail::pg_params& p, const char* doing,
                         hot prepared = hot::none) const {
    const std::string sql = with_prefix(sql_text);
    auto pause = options_.retry_pause;
    std::string last;
    for (int attempt = 0;; ++attempt) {
      std::unique_ptr<detail::pg_connection> c;
      try {
        c = pool_.take();
      } catch (const postgres_connect_error& e) {
        if (attempt == 0) throw;
        last = e.what();
      }
      if (c) {
        detail::pg_result r = run_on(*c, sql, p, prepared);
        const auto status = r.get() != nullptr ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
        if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
          pool_.give_back(std::move(c), true);
          return r;
        }
        const char* state = r.get() != nullptr ? PQresultErrorField(r.get(), PG_DIAG_SQLSTATE) : nullptr;
        const std::string sqlstate = state != nullptr ? state : "";
        const std::string message = detail::pg_trimmed(PQerrorMessage(c->handle));
        const bool lost = PQstatus(c->handle) != CONNECTION_OK;
        pool_.give_back(std::move(c), !lost);
        if (!(lost || sqlstate.starts_with("08") || sqlstate == "40001" || sqlstate == "40P01" ||
              sqlstate.starts_with("57P") || sqlstate == "23505"))
          throw store_error("stategraph: run queue at " + target_ + " (schema " + options_.schema + "): " + doing +
                            ": " + message + (sqlstate.empty() ? "" : " (SQLSTATE " + sqlstate + ")"));
        last = message;
      }
      if (attempt >= options_.max_retries)
        throw postgres_transient_error("stategraph: run queue at " + target_ + ": " + doing + " failed " +
                                           std::to_string(attempt + 1) + " times; last: " + last,
                                       "", attempt + 1);
      std::this_thread::sleep_for(pause);
      pause *= 2;
    }
  }

  static detail::pg_result run_on(detail::pg_connection& c, const std::string& sql, const detail::pg_params& p,
                                  hot prepared) {
    if (prepared == hot::none)
      return detail::pg_result(
          PQexecParams(c.handle, sql.c_str(), p.size(), p.types(), p.values(), p.lengths(), p.formats(), 1));
    const std::string name = "sgq" + std::to_string(static_cast<int>(prepared));
    const std::uint64_t bit = std::uint64_t{1} << static_cast<int>(prepared);
    if ((c.prepared & bit) == 0) {
      detail::pg_result r(PQprepare(c.handle, name.c_str(), sql.c_str(), p.size(), p.types()));
      if (r.get() == nullptr || PQresultStatus(r.get()) != PGRES_COMMAND_OK) return r;
      c.prepared |= bit;
    }
    return detail::pg_result(PQexecPrepared(c.handle, name.c_str(), p.size(), p.values(), p.lengths(), p.formats(), 1));
  }

  void open_schema() {
    auto c = pool_.take();
    auto run = [&](const std::string& sql) {
      detail::pg_result r(PQexec(c->handle, with_prefix(sql).c_str()));
      const auto s = PQresultStatus(r.get());
      if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
        const std::string message = detail::pg_trimmed(PQerrorMessage(c->handle));
        PQclear(PQexec(c->handle, "ROLLBACK"));
        throw store_error("stategraph: run queue at " + target_ + " (schema " + options_.schema +
                          "): opening: " + message);
      }
      return r;
    };
    const auto where = "stategraph: run queue at " + target_ + ": schema '" + options_.schema + "' ";
    std::string lock_key = options_.schema;
    for (char& ch : lock_key)
      if (ch == '\'') ch = '_';
    run("BEGIN");
    run("SELECT pg_advisory_xact_lock(1397191541, hashtext('" + lock_key + "'))");
    auto has = run("SELECT to_regclass('@sg_queue') IS NOT NULL");
    if (std::string_view(PQgetvalue(has.get(), 0, 0)) == "t") {
      auto v = run("SELECT value::text FROM @sg_queue WHERE key = 'queue_version'");
      const std::string version = PQntuples(v.get()) == 1 ? PQgetvalue(v.get(), 0, 0) : "";
      if (version != std::to_string(schema_version)) {
        PQclear(PQexec(c->handle, "ROLLBACK"));
        pool_.give_back(std::move(c), false);
        throw store_format_error(where + "holds a stategraph run queue of version " +
                                 (version.empty() ? std::string("(none)") : version) + "; this build reads version " +
                                 std::to_string(schema_version) + "; nothing was changed");
      }
    } else {
      run(detail::postgres_queue_sql);
    }
    run("COMMIT");
    pool_.give_back(std::move(c), true);
  }

  postgres_options options_;
  std::string target_;
  mutable detail::pg_pool pool_;
  std::string conninfo_;
  std::string prefix_;
};

// ---- workers -------------------------------------------------------------------------------

struct serve_options {
  std::size_t concurrency = 1;  // runs at once in this process, each on a thread of its own
  std::chrono::milliseconds lease{30'000};     // how long a claim holds without a heartbeat
  std::chrono::milliseconds heartbeat{10'000};  // how often the leases are renewed (well under `lease`)
  std::chrono::milliseconds poll{20};          // how long an idle slot waits before claiming again
  // A run whose attempt throws is given back to the queue and tried again (continuing from
  // its last checkpoint, the succeeded writes of the failed step kept) until it has failed
  // this many times; then it is recorded failed.
  int max_failures = 1;
  bool events = true;            // record each node and checkpoint of an invoke run as events
  bool exit_when_idle = false;   // return once no run of the queue is pending or running
  std::stop_token stop{};        // return when stop is requested (runs in progress finish first)
  std::string name{};            // the worker's name in the queue; default host:pid:random
};

struct serve_stats {
  std::size_t claimed = 0, done = 0, interrupted = 0, failed = 0, retried = 0, cancelled = 0, refused = 0;
  std::size_t lost = 0;  // attempts whose lease another worker took over: their outcome was not recorded
};

namespace detail {

// Thrown from a streamed run's callback after a checkpoint when the run was cancelled: the
// thread keeps every checkpoint committed so far.
struct run_cancelled {};
// Thrown when the run's lease was found taken over: its outcome is the new holder's to record.
struct run_lost {};

struct serve_slot_state {
  std::atomic<bool> cancel{false}, lost{false};
};

inline std::string default_worker_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::random_device rd;
  return std::string(host) + ":" + std::to_string(::getpid()) + ":" + std::to_string(rd() % 100000);
}

template <class S>
std::string interrupts_json(const std::vector<interrupt_info>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& i : list) {
    nlohmann::json payload = nlohmann::json::parse(i.payload, nullptr, false);
    out.push_back({{"id", i.id}, {"node", i.path()}, {"payload", payload.is_discarded() ? nlohmann::json(i.payload) : payload}});
  }
  return out.dump();
}

}  // namespace detail

// Serves runs of `queue` with `app` (a checkpointed app, sg::compile<G>(sg::with_store(store)),
// whose store is in the queue's database and schema) until options.stop is requested, or,
// with exit_when_idle, until no run is pending or running. Several processes may serve one
// queue; each run is claimed by one worker at a time.
template <class DurableApp>
serve_stats serve(const DurableApp& app, postgres_queue& queue, serve_options options = {}) {
  using S = typename DurableApp::state_type;
  const std::string worker = options.name.empty() ? detail::default_worker_name() : options.name;
  if (options.concurrency == 0) options.concurrency = 1;

  std::mutex mutex;
  std::map<std::int64_t, std::shared_ptr<detail::serve_slot_state>> active;
  serve_stats stats;
  std::atomic<bool> stopping{false};
  std::condition_variable wake;

  auto stop_requested = [&] { return stopping.load() || options.stop.stop_requested(); };

  auto run_one = [&](const claimed_run& c, detail::serve_slot_state& slot) {
    const thread_id t{c.thread};
    auto count = [&](std::size_t serve_stats::*field) {
      std::lock_guard lock(mutex);
      ++(stats.*field);
    };
    auto finish = [&](run_status status, const std::string& result, const std::string& interrupts,
                      std::int64_t checkpoint, const std::string& error) {
      if (queue.finish(c, worker, status, result, interrupts, checkpoint, error)) {
        switch (status) {
          case run_status::done: count(&serve_stats::done); break;
          case run_status::interrupted: count(&serve_stats::interrupted); break;
          case run_status::cancelled: count(&serve_stats::cancelled); break;
          case run_status::refused: count(&serve_stats::refused); break;
          default: count(&serve_stats::failed); break;
        }
      } else {
        count(&serve_stats::lost);
      }
    };
    if (!c.graph.empty() && c.graph != detail::schema_hash_text<S>()) {
      finish(run_status::refused, "", "", no_checkpoint,
             "run " + std::to_string(c.id) + " was submitted for a graph whose state schema hashes to " + c.graph +
                 "; this worker runs " + detail::schema_hash_text<S>() + "; it was not run");
      return;
    }
    if (c.cancel_requested) {
      finish(run_status::cancelled, "", "", no_checkpoint, "");
      return;
    }
    queue.record(c, worker, "claimed",
                 nlohmann::json{{"worker", worker}, {"attempt", c.attempt}, {"base", c.base}}.dump());
    const auto head_now = [&] {
      const auto list = app.store().list(t.value, {.limit = 1});
      return list.empty() ? no_checkpoint : list.front().id;
    };
    // One go at the run. A checkpoint beyond the run's base means an earlier attempt
    // committed the input (and maybe more): continue from there rather than apply it again.
    auto go = [&]() -> S {
      if (head_now() > c.base) {
        // The earlier attempt finished the run but did not record it.
        auto finished = [&]() -> std::optional<S> {
          auto snap = app.get_state(t);
          if (snap && snap->next.empty() && !snap->failed) return std::move(snap->values);
          return std::nullopt;
        };
        if (auto values = finished()) return std::move(*values);
        try {
          return app.resume(t);
        } catch (const conflict_error&) {
          throw;
        } catch (const std::exception&) {
          // ... or finished it between the look above and the resume's own read.
          if (auto values = finished()) return std::move(*values);
          throw;
        }
      }
      if (c.kind == run_kind::invoke) {
        S input = state_from_json<S>(c.input);
        if (!options.events) return app.invoke(std::move(input), t);
        return app.stream(std::move(input), t, stream_mode::updates | stream_mode::checkpoints, [&](const auto& e) {
          if (e.mode == stream_mode::updates) {
            nlohmann::json channels = nlohmann::json::array();
            for (auto ch : e.channels) channels.push_back(std::string(ch));
            queue.record(c, worker, "node",
                         nlohmann::json{{"step", e.step}, {"node", std::string(e.node)}, {"channels", channels}}.dump());
          } else if (e.mode == stream_mode::checkpoints) {
            // The event is written only while the run is ours: a worker whose lease was
            // taken over learns it here and stops, rather than race its successor.
            if (!queue.record(c, worker, "checkpoint",
                              nlohmann::json{{"id", e.checkpoint.id}, {"step", e.checkpoint.step}}.dump()) ||
                slot.lost.load())
              throw detail::run_lost{};
            if (slot.cancel.load()) throw detail::run_cancelled{};
          }
        });
      }
      if (c.kind == run_kind::resume) return app.resume(t);
      answers given;
      const auto list = detail::parse_or_throw(c.input, "a queued run's answers");
      for (const auto& a : list) given.add(a.at(0).template get<std::string>(), a.at(1));
      return app.resume(t, given);
    };
    try {
      std::optional<S> out;
      // Another writer moved the thread's head: a worker whose lease expired and was taken
      // over, still running. If the run is still ours, continue from the new head (the store
      // refused the stale step whole); if not, stop and record nothing.
      for (int round = 0; !out; ++round) {
        try {
          out = go();
        } catch (const conflict_error&) {
          // The other writer is still running (it may not know it lost the run until its own
          // commit is refused), so the bound is generous.
          if (round >= 1000 || slot.lost.load() || queue.heartbeat(worker, {c.id}, options.lease).empty())
            throw detail::run_lost{};
        } catch (const thread_busy_error&) {
          // The other writer is an older attempt in this process (its lease lapsed and this
          // worker claimed the run again); told it lost the run, it stops at its next
          // checkpoint, or returns and finds its outcome refused.
          if (round >= 1000 || slot.lost.load()) throw detail::run_lost{};
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
      }
      if (slot.cancel.load()) {
        finish(run_status::cancelled, state_to_json(*out), "", head_now(), "");
        return;
      }
      const auto snap = app.get_state(t);
      const bool paused = snap && !snap->next.empty();
      finish(paused ? run_status::interrupted : run_status::done, state_to_json(*out),
             paused ? detail::interrupts_json<S>(snap->interrupts) : std::string(),
             snap ? snap->checkpoint_id : no_checkpoint, "");
    } catch (const detail::run_cancelled&) {
      finish(run_status::cancelled, "", "", no_checkpoint, "");
    } catch (const detail::run_lost&) {
      count(&serve_stats::lost);
    } catch (const std::exception& e) {
      if (slot.lost.load()) {
        count(&serve_stats::lost);
        return;
      }
      if (queue.failures(c.id) + 1 < options.max_failures) {
        if (queue.give_back(c, worker, e.what()))
          count(&serve_stats::retried);
        else
          count(&serve_stats::lost);
        return;
      }
      finish(run_status::failed, "", "", no_checkpoint, e.what());
    }
  };

  // One idle slot per process asks the queue at a time; the others wait for their turn
  // rather than poll too, so an idle fleet costs one claim per `poll` per process, and a
  // slot that claimed a run hands the turn on at once.
  std::mutex claim_turn;
  auto slot_loop = [&] {
    while (!stop_requested()) {
      std::optional<claimed_run> c;
      {
        std::lock_guard turn(claim_turn);
        while (!stop_requested()) {
          try {
            c = queue.claim(worker, options.lease);
          } catch (const store_error&) {
            c.reset();  // the server is away: try again after a pause
          }
          if (c || (options.exit_when_idle && queue.unfinished() == 0)) break;
          std::unique_lock lock(mutex);
          wake.wait_for(lock, options.poll, [&] { return stop_requested(); });
        }
      }
      if (!c) break;
      auto slot = std::make_shared<detail::serve_slot_state>();
      {
        std::lock_guard lock(mutex);
        ++stats.claimed;
        // This process may still run an older attempt of the run (its lease lapsed): it has
        // lost the run, and the heartbeat, which goes by run and worker, cannot tell it.
        auto& held = active[c->id];
        if (held) held->lost = true;
        held = slot;
      }
      run_one(*c, *slot);
      std::lock_guard lock(mutex);
      if (auto it = active.find(c->id); it != active.end() && it->second == slot) active.erase(it);
    }
  };

  // Renews the leases of the runs in progress; a run missing from the answer was taken over.
  std::jthread beat([&](std::stop_token st) {
    std::mutex m;
    std::condition_variable_any cv;
    while (!st.stop_requested()) {
      {
        std::unique_lock lock(m);
        cv.wait_for(lock, st, options.heartbeat, [] { return false; });
      }
      if (st.stop_requested()) break;
      std::vector<std::int64_t> ids;
      std::map<std::int64_t, std::shared_ptr<detail::serve_slot_state>> now;
      {
        std::lock_guard lock(mutex);
        now = active;
      }
      for (const auto& entry : now) ids.push_back(entry.first);
      if (ids.empty()) continue;
      try {
        const auto held = queue.heartbeat(worker, ids, options.lease);
        for (auto& entry : now) {
          const std::int64_t id = entry.first;
          auto it = std::find_if(held.begin(), held.end(), [id](const auto& h) { return h.first == id; });
          if (it == held.end())
            entry.second->lost = true;
          else if (it->second)
            entry.second->cancel = true;
        }
      } catch (const store_error&) {
        // the server is away: the leases may expire, and the runs' late commits are refused
      }
    }
  });

  std::vector<std::thread> slots;
  std::exception_ptr failure;
  std::mutex failure_mutex;
  for (std::size_t i = 0; i < options.concurrency; ++i)
    slots.emplace_back([&] {
      try {
        slot_loop();
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        stopping = true;
      }
    });
  std::stop_callback on_stop(options.stop, [&] { wake.notify_all(); });
  for (auto& s : slots) s.join();
  beat.request_stop();
  beat.join();
  if (failure) std::rethrow_exception(failure);
  return stats;
}

}  // namespace stategraph
