// The run queue and its workers (sg::postgres_queue, sg::serve) against the test cluster:
// runs submitted, claimed, run to their end or an interrupt, recorded; cancelled, refused
// for another graph, given back after a failure with the step's succeeded writes kept; two
// workers claiming each run exactly once; a worker whose lease expires while it still runs,
// and a worker process killed with SIGKILL, each taken over with no step committed twice.
#include "postgres_fixture.hpp"

#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/postgres_queue.hpp>

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace sg = stategraph;
using namespace std::chrono_literals;

// Named: Clang cannot reflect a state type with internal linkage.
namespace postgres_fleet {

// A loop: `work` runs until `steps` reaches `goal`, logging each step.
struct Job {
  sg::counter<int> steps;
  sg::append<std::string> log;
  int goal = 0;
};
inline std::atomic<int> work_sleep_ms{0};
struct work {
  using reads = sg::reads<&Job::steps>;
  using writes = sg::writes<&Job::steps, &Job::log>;
  auto operator()(sg::view<Job, reads> in) const {
    if (int ms = work_sleep_ms.load(); ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return sg::write<&Job::steps>(1) | sg::write<&Job::log>("s" + std::to_string(in.get<&Job::steps>() + 1));
  }
};
struct again {
  using reads = sg::reads<&Job::steps, &Job::goal>;
  sg::go<work, sg::end> operator()(sg::view<Job, reads> in) const {
    if (in.get<&Job::steps>() < in.get<&Job::goal>()) return sg::to<work>;
    return sg::to<sg::end>;
  }
};
using job_graph = sg::graph<Job, sg::edge<sg::start, work>, sg::branch<work, again>>;

// Two nodes in one step; `flaky` fails while `fail_flaky` is set.
struct Pair {
  sg::append<std::string> log;
};
inline std::atomic<int> steady_runs{0}, flaky_runs{0};
inline std::atomic<bool> fail_flaky{false};
struct steady {
  using writes = sg::writes<&Pair::log>;
  auto operator()(sg::view<Pair, sg::reads<>>) const {
    ++steady_runs;
    return sg::write<&Pair::log>(std::string("steady"));
  }
};
struct flaky {
  using writes = sg::writes<&Pair::log>;
  auto operator()(sg::view<Pair, sg::reads<>>) const {
    ++flaky_runs;
    if (fail_flaky.exchange(false)) throw std::runtime_error("flaky is down");
    return sg::write<&Pair::log>(std::string("flaky"));
  }
};
using pair_graph = sg::graph<Pair, sg::edge<sg::start, steady>, sg::edge<sg::start, flaky>, sg::edge<steady, sg::end>,
                             sg::edge<flaky, sg::end>>;

// A node that asks.
struct Ask {
  sg::append<std::string> log;
  std::string verdict;
};
struct ask {
  using writes = sg::writes<&Ask::log, &Ask::verdict>;
  auto operator()(sg::view<Ask, sg::reads<>>) const {
    auto answer = sg::interrupt<std::string>("ok?");
    return sg::write<&Ask::log>("asked:" + answer) | sg::write<&Ask::verdict>(answer);
  }
};
using ask_graph = sg::graph<Ask, sg::edge<sg::start, ask>, sg::edge<ask, sg::end>>;

struct Other {
  int x = 0;
};

}  // namespace postgres_fleet

using namespace postgres_fleet;

namespace {

// One worker's pieces, as one process has them.
template <class G>
struct fleet_worker {
  explicit fleet_worker(const sg_test::temp_schema& schema)
      : store(sg_test::postgres_conninfo(), sg::postgres_options{.schema = schema.name()}),
        queue(sg_test::postgres_conninfo(), sg::postgres_options{.schema = schema.name()}),
        app(sg::compile<G>(sg::with_store(store))) {}
  sg::postgres_store store;
  sg::postgres_queue queue;
  decltype(sg::compile<G>(sg::with_store(std::declval<sg::postgres_store&>()))) app;
};

std::vector<std::string> job_log(int n) {
  std::vector<std::string> out;
  for (int i = 1; i <= n; ++i) out.push_back("s" + std::to_string(i));
  return out;
}

std::map<std::string, int> kinds(const std::vector<sg::run_event>& events) {
  std::map<std::string, int> out;
  for (const auto& e : events) ++out[e.kind];
  return out;
}

// The thread's history is one chain: every checkpoint continues the one before (a step
// committed twice would branch it or skip an id).
void check_one_chain(const sg::postgres_store& store, const std::string& thread, std::size_t expected) {
  const auto list = store.list(thread);
  CHECK(list.size() == expected);
  for (const auto& c : list) CHECK(c.parent == c.id - 1);
}

}  // namespace

TEST_CASE("fleet: runs are submitted, served, waited on, listed, and their events read") {
  sg_test::temp_schema schema("fleet_basic");
  work_sleep_ms = 0;
  fleet_worker<job_graph> w(schema);
  auto& q = w.queue;
  const auto a1 = q.submit(sg::thread_id{"a"}, Job{.goal = 3});
  const auto b1 = q.submit(sg::thread_id{"b"}, Job{.goal = 2});
  const auto a2 = q.submit(sg::thread_id{"a"}, Job{.goal = 5});  // continues a after a1
  const auto c1 = q.submit(sg::thread_id{"c"}, Job{.goal = 4});
  CHECK(q.list(sg::run_status::pending).size() == 4);
  CHECK(q.cancel(c1));
  CHECK(q.get(c1).status == sg::run_status::cancelled);
  CHECK_FALSE(q.cancel(c1));  // final already
  CHECK_THROWS_AS(q.get(999'999), sg::run_not_found_error);
  CHECK_THROWS_AS(q.cancel(999'999), sg::run_not_found_error);
  CHECK_THROWS_AS(q.submit(sg::thread_id{""}, Job{}), sg::store_refused_error);
  CHECK(q.wait(a1, 1ms).status == sg::run_status::pending);  // nobody serves yet: the wait times out

  const auto stats = sg::serve(w.app, q, {.concurrency = 2, .poll = 2ms, .exit_when_idle = true});
  CHECK(stats.claimed == 3);
  CHECK(stats.done == 3);
  CHECK(stats.lost == 0);

  const auto r1 = q.wait(a1, 1s);
  REQUIRE(r1.status == sg::run_status::done);
  CHECK(r1.attempts == 1);
  const Job first = sg::state_from_json<Job>(r1.result);
  CHECK(first.steps == 3);
  CHECK(first.log.value() == job_log(3));
  CHECK(r1.checkpoint == 4);  // the input and three steps
  const auto r2 = q.get(a2);
  REQUIRE(r2.status == sg::run_status::done);
  const Job second = sg::state_from_json<Job>(r2.result);
  CHECK(second.steps == 5);
  CHECK(second.log.value() == job_log(5));
  CHECK(r2.started >= r1.finished);  // one thread's runs go in order
  CHECK(sg::state_from_json<Job>(q.get(b1).result).steps == 2);
  CHECK(q.list(sg::run_status::done).size() == 3);
  CHECK(q.list(sg::run_status::cancelled).size() == 1);
  CHECK(q.list_thread(sg::thread_id{"a"}).size() == 2);
  CHECK(w.store.list("c").empty());  // the cancelled run never ran

  // a1's events: claimed, a node event per step, a checkpoint per commit, done.
  const auto events = q.events(a1);
  auto k = kinds(events);
  CHECK(k["claimed"] == 1);
  CHECK(k["node"] == 3);
  CHECK(k["checkpoint"] == 4);
  CHECK(k["done"] == 1);
  CHECK(events.front().kind == "claimed");
  CHECK(events.back().kind == "done");
  for (std::size_t i = 0; i < events.size(); ++i) CHECK(events[i].seq == static_cast<std::int64_t>(i + 1));
  CHECK(q.events(a1, events[2].seq).size() == events.size() - 3);  // polling from the last seen
  check_one_chain(w.store, "a", 7);  // a1: input + 3 steps; a2: input + 2 steps
}

TEST_CASE("fleet: a worker refuses a run submitted for another graph and records why") {
  sg_test::temp_schema schema("fleet_refuse");
  fleet_worker<job_graph> w(schema);
  const auto run = w.queue.submit(sg::thread_id{"x"}, Other{.x = 1});
  const auto stats = sg::serve(w.app, w.queue, {.poll = 2ms, .exit_when_idle = true});
  CHECK(stats.refused == 1);
  const auto r = w.queue.get(run);
  CHECK(r.status == sg::run_status::refused);
  CHECK(r.error.find(sg::detail::schema_hash_text<Other>()) != std::string::npos);
  CHECK(r.error.find(sg::detail::schema_hash_text<Job>()) != std::string::npos);
  CHECK(w.store.list("x").empty());  // nothing ran
  // Bad JSON in a run's input: a failed run with the decoder's error, nothing written.
  sg_test::postgres_admin("INSERT INTO \"" + schema.name() + "\".sg_runs (thread, kind, input, graph) VALUES ('y', 'invoke', '{\"steps\": \"many\"}', '" +
                          sg::detail::schema_hash_text<Job>() + "')");
  sg::serve(w.app, w.queue, {.poll = 2ms, .exit_when_idle = true});
  const auto bad = w.queue.list(sg::run_status::failed);
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].error.find("steps") != std::string::npos);
  CHECK(w.store.list("y").empty());
}

TEST_CASE("fleet: a queue that cannot be reached, or of another version, is refused with nothing changed") {
  CHECK_THROWS_AS(sg::postgres_queue("host=/nonexistent-sg-socket-dir user=sg dbname=postgres"),
                  sg::postgres_connect_error);
  sg_test::temp_schema schema("fleet_version");
  { sg::postgres_queue q(sg_test::postgres_conninfo(), {.schema = schema.name()}); }
  sg_test::postgres_admin("UPDATE \"" + schema.name() + "\".sg_queue SET value = 99");
  try {
    sg::postgres_queue q(sg_test::postgres_conninfo(), {.schema = schema.name()});
    FAIL("a queue of version 99 was opened");
  } catch (const sg::store_format_error& e) {
    CHECK(std::string(e.what()).find("version 99") != std::string::npos);
    CHECK(std::string(e.what()).find("nothing was changed") != std::string::npos);
  }
  // The store beside it still opens: the queue's version is its own.
  sg::postgres_store store(sg_test::postgres_conninfo(), {.schema = schema.name()});
  CHECK(store.threads().empty());
}

TEST_CASE("fleet: two workers claim each run exactly once") {
  sg_test::temp_schema schema("fleet_two");
  work_sleep_ms = 0;
  constexpr int runs = 24;
  {
    fleet_worker<job_graph> producer(schema);
    for (int i = 0; i < runs; ++i) producer.queue.submit(sg::thread_id{"t" + std::to_string(i)}, Job{.goal = 2});
  }
  sg::serve_stats stats[2];
  std::vector<std::thread> workers;
  for (int i = 0; i < 2; ++i)
    workers.emplace_back([&, i] {
      fleet_worker<job_graph> w(schema);
      stats[i] = sg::serve(w.app, w.queue, {.concurrency = 3, .poll = 1ms, .exit_when_idle = true,
                                            .name = "worker" + std::to_string(i)});
    });
  for (auto& t : workers) t.join();
  MESSAGE("worker0 claimed " << stats[0].claimed << ", worker1 claimed " << stats[1].claimed);
  CHECK(stats[0].claimed + stats[1].claimed == runs);
  CHECK(stats[0].done + stats[1].done == runs);
  fleet_worker<job_graph> check(schema);
  const auto done = check.queue.list(sg::run_status::done);
  REQUIRE(done.size() == static_cast<std::size_t>(runs));
  for (const auto& r : done) {
    CHECK(r.attempts == 1);
    CHECK(kinds(check.queue.events(r.id))["claimed"] == 1);
    check_one_chain(check.store, r.thread, 3);
  }
}

TEST_CASE("fleet: a failed attempt goes back to the queue and continues with the step's succeeded writes kept") {
  sg_test::temp_schema schema("fleet_retry");
  fleet_worker<pair_graph> w(schema);
  steady_runs = flaky_runs = 0;
  fail_flaky = true;
  const auto run = w.queue.submit(sg::thread_id{"p"}, Pair{});
  const auto stats = sg::serve(w.app, w.queue, {.poll = 1ms, .max_failures = 2, .exit_when_idle = true});
  CHECK(stats.retried == 1);
  CHECK(stats.done == 1);
  const auto r = w.queue.get(run);
  CHECK(r.status == sg::run_status::done);
  CHECK(r.attempts == 2);
  CHECK(r.failures == 1);
  CHECK(r.error.find("flaky is down") != std::string::npos);  // the failure given back stays readable
  CHECK(steady_runs == 1);  // its write was kept as a pending write, not run again
  CHECK(flaky_runs == 2);
  CHECK(sg::state_from_json<Pair>(r.result).log.value() == std::vector<std::string>{"steady", "flaky"});
  CHECK(kinds(w.queue.events(run))["retry"] == 1);

  // With one failure allowed the run is recorded failed.
  fail_flaky = true;
  const auto second = w.queue.submit(sg::thread_id{"q"}, Pair{});
  sg::serve(w.app, w.queue, {.poll = 1ms, .exit_when_idle = true});
  const auto f = w.queue.get(second);
  CHECK(f.status == sg::run_status::failed);
  CHECK(f.error.find("flaky is down") != std::string::npos);
  // ... and a resume run continues it, running only the node that failed.
  steady_runs = flaky_runs = 0;
  const auto resumed = w.queue.submit_resume(sg::thread_id{"q"});
  sg::serve(w.app, w.queue, {.poll = 1ms, .exit_when_idle = true});
  CHECK(w.queue.get(resumed).status == sg::run_status::done);
  CHECK(steady_runs == 0);
  CHECK(flaky_runs == 1);
}

TEST_CASE("fleet: an interrupted run is recorded with its interrupts and answered by a resume run") {
  sg_test::temp_schema schema("fleet_ask");
  fleet_worker<ask_graph> w(schema);
  const sg::thread_id t{"ask"};
  const auto run = w.queue.submit(t, Ask{});
  sg::serve(w.app, w.queue, {.poll = 1ms, .exit_when_idle = true});
  const auto r = w.queue.get(run);
  REQUIRE(r.status == sg::run_status::interrupted);
  const auto interrupts = nlohmann::json::parse(r.interrupts);
  REQUIRE(interrupts.size() == 1);
  CHECK(interrupts[0]["node"] == "ask");
  CHECK(interrupts[0]["payload"] == "ok?");
  const auto answer = w.queue.submit_resume(t, sg::answers{{interrupts[0]["id"].get<std::string>(), "yes"}});
  sg::serve(w.app, w.queue, {.poll = 1ms, .exit_when_idle = true});
  const auto done = w.queue.get(answer);
  REQUIRE(done.status == sg::run_status::done);
  const Ask out = sg::state_from_json<Ask>(done.result);
  CHECK(out.verdict == "yes");
  CHECK(out.log.value() == std::vector<std::string>{"asked:yes"});
}

TEST_CASE("fleet: a running run is cancelled at its next checkpoint") {
  sg_test::temp_schema schema("fleet_cancel");
  work_sleep_ms = 5;
  fleet_worker<job_graph> w(schema);
  const auto run = w.queue.submit(sg::thread_id{"long"}, Job{.goal = 400});
  std::thread server([&] { sg::serve(w.app, w.queue, {.heartbeat = 10ms, .poll = 1ms, .exit_when_idle = true}); });
  while (w.store.list("long", {.limit = 1}).empty() || w.store.list("long", {.limit = 1}).front().id < 3)
    std::this_thread::sleep_for(1ms);
  CHECK(w.queue.cancel(run));
  const auto r = w.queue.wait(run, 10s);
  server.join();
  work_sleep_ms = 0;
  CHECK(r.status == sg::run_status::cancelled);
  const auto head = w.store.list("long", {.limit = 1}).front();
  CHECK(head.id >= 3);
  CHECK(head.id < 401);  // stopped long before its end
  CHECK(kinds(w.queue.events(run))["cancelled"] == 1);
}

TEST_CASE("fleet: a worker whose lease expired while it still runs is taken over; no step is committed twice") {
  sg_test::temp_schema schema("fleet_lease");
  work_sleep_ms = 30;
  constexpr int goal = 12;
  fleet_worker<job_graph> slow(schema), other(schema);
  const auto run = slow.queue.submit(sg::thread_id{"l"}, Job{.goal = goal});
  sg::serve_stats slow_stats, other_stats;
  // `slow` never renews its lease (its heartbeat is far away): `other` claims the run once
  // the lease expires, while `slow` still runs it.
  std::thread a([&] {
    slow_stats = sg::serve(slow.app, slow.queue, {.lease = 120ms, .heartbeat = 1h, .poll = 1ms, .exit_when_idle = true,
                                                  .name = "slow"});
  });
  while (slow.store.list("l").empty()) std::this_thread::sleep_for(1ms);
  std::thread b([&] {
    other_stats = sg::serve(other.app, other.queue, {.lease = 10s, .poll = 5ms, .exit_when_idle = true,
                                                     .name = "other"});
  });
  a.join();
  b.join();
  work_sleep_ms = 0;
  CHECK(slow_stats.lost == 1);
  CHECK(other_stats.done == 1);
  const auto r = other.queue.get(run);
  REQUIRE(r.status == sg::run_status::done);
  CHECK(r.attempts == 2);
  CHECK(r.worker == "other");
  const Job out = sg::state_from_json<Job>(r.result);
  CHECK(out.steps == goal);
  CHECK(out.log.value() == job_log(goal));
  check_one_chain(other.store, "l", goal + 1);
}

TEST_CASE("fleet: a worker process killed with SIGKILL is taken over after its lease expires") {
  sg_test::temp_schema schema("fleet_kill");
  constexpr int goal = 15;
  std::int64_t run = 0;
  {
    fleet_worker<job_graph> producer(schema);
    run = producer.queue.submit(sg::thread_id{"k"}, Job{.goal = goal});
  }
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int code = 0;
    try {
      work_sleep_ms = 20;
      fleet_worker<job_graph> w(schema);
      sg::serve(w.app, w.queue, {.lease = 250ms, .heartbeat = 50ms, .poll = 1ms, .exit_when_idle = true, .name = "doomed"});
    } catch (...) {
      code = 3;
    }
    ::_exit(code);
  }
  fleet_worker<job_graph> w(schema);
  for (int i = 0; i < 5000; ++i) {  // until the child has committed a few steps
    const auto head = w.store.list("k", {.limit = 1});
    if (!head.empty() && head.front().id >= 5) break;
    std::this_thread::sleep_for(1ms);
  }
  REQUIRE(::kill(child, SIGKILL) == 0);
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  const auto at_kill = w.store.list("k", {.limit = 1}).front().id;
  CHECK(at_kill < goal + 1);  // it died mid-run
  CHECK(w.queue.get(run).status == sg::run_status::running);  // its lease still stands
  work_sleep_ms = 0;
  const auto stats = sg::serve(w.app, w.queue, {.lease = 250ms, .poll = 5ms, .exit_when_idle = true, .name = "heir"});
  CHECK(stats.done == 1);
  const auto r = w.queue.get(run);
  REQUIRE(r.status == sg::run_status::done);
  CHECK(r.attempts == 2);
  const Job out = sg::state_from_json<Job>(r.result);
  CHECK(out.steps == goal);
  CHECK(out.log.value() == job_log(goal));  // each step once, in order
  check_one_chain(w.store, "k", goal + 1);
  auto k = kinds(w.queue.events(run));
  CHECK(k["claimed"] == 2);
  CHECK(k["done"] == 1);
}

TEST_CASE("fleet: a worker that claims again a run its own stalled slot still runs takes it over (no 'already running')") {
  // The chaos test found it: one process, two slots; the first slot's lease lapses (its
  // heartbeat never comes) and the second slot claims the same run while the first still
  // runs it. The second used to fail at once (thread_busy_error), recording the run failed.
  sg_test::temp_schema schema("fleet_self");
  work_sleep_ms = 30;
  constexpr int goal = 12;
  fleet_worker<job_graph> w(schema);
  const auto run = w.queue.submit(sg::thread_id{"self"}, Job{.goal = goal});
  const auto stats = sg::serve(w.app, w.queue, {.concurrency = 2, .lease = 100ms, .heartbeat = 1h, .poll = 2ms,
                                                .exit_when_idle = true, .name = "self"});
  work_sleep_ms = 0;
  const auto r = w.queue.get(run);
  REQUIRE_MESSAGE(r.status == sg::run_status::done, r.error);
  CHECK(r.attempts >= 2);
  CHECK(stats.done == 1);
  CHECK(stats.lost == stats.claimed - 1);  // every attempt but the last one gave the run up
  const Job out = sg::state_from_json<Job>(r.result);
  CHECK(out.steps == goal);
  CHECK(out.log.value() == job_log(goal));
  check_one_chain(w.store, "self", goal + 1);
}

namespace {

// A store that lets another writer finish the thread between the taking-over worker's
// get_state (the first read of the latest checkpoint) and its resume (the second).
struct racing_store : sg::postgres_store {
  using sg::postgres_store::postgres_store;
  using sg::postgres_store::get;
  std::function<void()> between;
  mutable int latest_reads = 0;
  std::optional<sg::stored_checkpoint> get(std::string_view thread) const {
    if (++latest_reads == 2 && between) between();
    return sg::postgres_store::get(thread);
  }
};

}  // namespace

TEST_CASE("fleet: a taken-over run whose old attempt finishes it just before the new one resumes is recorded done") {
  // The chaos test found it: the new attempt saw the run unfinished, the old one committed
  // its last step, and the new attempt's resume found nothing to resume and failed the run.
  sg_test::temp_schema schema("fleet_race");
  constexpr int goal = 6;
  fleet_worker<job_graph> old_worker(schema);
  const sg::thread_id t{"race"};
  const auto run = old_worker.queue.submit(t, Job{.goal = goal});
  // The old attempt: claims with a lease that lapses at once, and commits three steps.
  REQUIRE(old_worker.queue.claim("old", 1ms));
  CHECK_THROWS_AS(old_worker.app.invoke(Job{.goal = goal}, t, sg::run_config{.recursion_limit = 3}),
                  sg::recursion_limit_error);
  REQUIRE(old_worker.store.list("race").size() == 4);
  std::this_thread::sleep_for(5ms);

  racing_store store(sg_test::postgres_conninfo(), sg::postgres_options{.schema = schema.name()});
  sg::postgres_queue queue(sg_test::postgres_conninfo(), sg::postgres_options{.schema = schema.name()});
  auto app = sg::compile<job_graph>(sg::with_store(store));
  store.between = [&] { old_worker.app.resume(t); };  // the old attempt runs to the end
  const auto stats = sg::serve(app, queue, {.poll = 1ms, .exit_when_idle = true, .name = "new"});
  CHECK(store.latest_reads >= 2);  // the race was staged
  const auto r = queue.get(run);
  REQUIRE_MESSAGE(r.status == sg::run_status::done, r.error);
  CHECK(stats.done == 1);
  const Job out = sg::state_from_json<Job>(r.result);
  CHECK(out.steps == goal);
  CHECK(out.log.value() == job_log(goal));
  check_one_chain(store, "race", goal + 1);
}

TEST_CASE("fleet: a claim takes a run whose lease expired before the oldest pending run") {
  sg_test::temp_schema schema("fleet_claim_order");
  sg::postgres_queue queue(sg_test::postgres_conninfo(), sg::postgres_options{.schema = schema.name()});
  const auto first = queue.submit(sg::thread_id{"a"}, Job{.goal = 1});
  const auto second = queue.submit(sg::thread_id{"b"}, Job{.goal = 1});
  const auto later = queue.submit(sg::thread_id{"a"}, Job{.goal = 1});  // waits for `first`
  const auto c1 = queue.claim("w1", 1h);
  REQUIRE(c1);
  CHECK(c1->id == first);
  const auto c2 = queue.claim("w2", 300ms);
  REQUIRE(c2);
  CHECK(c2->id == second);  // not `later`: its thread's older run is running
  REQUIRE(queue.give_back(*c1, "w1", "tried again"));  // `first` is pending again, older than `second`
  std::this_thread::sleep_for(400ms);                  // `second`'s lease lapses
  const auto c3 = queue.claim("w3", 1h);
  REQUIRE(c3);
  CHECK(c3->id == second);  // the abandoned run first
  CHECK(c3->attempt == 2);
  const auto c4 = queue.claim("w4", 1h);
  REQUIRE(c4);
  CHECK(c4->id == first);
  CHECK_FALSE(queue.claim("w5", 1h));  // `later` still waits for `first`
  CHECK(queue.get(later).status == sg::run_status::pending);
}

TEST_CASE("fleet: prune removes the final runs that finished before a time, with their events, and nothing else") {
  sg_test::temp_schema schema("fleet_prune");
  work_sleep_ms = 0;
  fleet_worker<job_graph> w(schema);
  auto& q = w.queue;
  const auto old_done = q.submit(sg::thread_id{"p1"}, Job{.goal = 2});
  const auto old_refused = q.submit(sg::thread_id{"p2"}, Other{.x = 1});
  const auto new_done = q.submit(sg::thread_id{"p3"}, Job{.goal = 1});
  sg::serve(w.app, q, {.poll = 1ms, .exit_when_idle = true});
  const auto old_cancelled = q.submit(sg::thread_id{"p4"}, Job{.goal = 1});
  CHECK(q.cancel(old_cancelled));
  const auto old_pending = q.submit(sg::thread_id{"p5"}, Job{.goal = 1});
  REQUIRE(q.get(old_done).status == sg::run_status::done);
  REQUIRE(q.get(old_refused).status == sg::run_status::refused);
  REQUIRE(q.get(new_done).status == sg::run_status::done);
  REQUIRE_FALSE(q.events(old_done).empty());
  // Three final runs and the pending one made two hours old.
  const std::string runs = "\"" + schema.name() + "\".sg_runs";
  sg_test::postgres_admin("UPDATE " + runs + " SET submitted = submitted - interval '2 hours',"
                          " finished = finished - interval '2 hours' WHERE id IN (" + std::to_string(old_done) + ", " +
                          std::to_string(old_refused) + ", " + std::to_string(old_cancelled) + ", " +
                          std::to_string(old_pending) + ")");

  CHECK(q.prune(sg::older_than{3h}) == 0);  // none finished that long ago
  CHECK(q.prune(sg::older_than{1h}) == 3);
  for (auto id : {old_done, old_refused, old_cancelled}) {
    CHECK_THROWS_AS(q.get(id), sg::run_not_found_error);
    CHECK(q.events(id).empty());
  }
  CHECK(q.get(old_pending).status == sg::run_status::pending);  // not final: kept, whatever its age
  CHECK(q.get(new_done).status == sg::run_status::done);
  CHECK_FALSE(q.events(new_done).empty());
  CHECK(w.store.list("p1").size() == 3);  // the thread's checkpoints are the store's
  // A time point works as well as an age; the pending run is still served afterwards.
  CHECK(q.prune(sg::older_than{std::chrono::system_clock::now() + 1min}) == 1);  // new_done
  sg::serve(w.app, q, {.poll = 1ms, .exit_when_idle = true});
  CHECK(q.get(old_pending).status == sg::run_status::done);
}
