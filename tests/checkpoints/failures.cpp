// Failures with a store (semantics.md, "Failures"): a node that throws fails its step and
// the state stays as at the step start; the writes of siblings that succeeded are kept as
// pending writes, are not run again on resume, and still trigger their edges and joins.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

using namespace durable_test;

namespace durable_failures {

struct Work {
  sg::append<std::string> log;
  sg::counter<int> total;
};

// How often each node ran, and how many more times `b` and `p` throw before they succeed.
struct counts {
  std::atomic<int> a{0}, b{0}, c{0}, e{0}, p{0}, x{0};
  std::atomic<int> b_failures{0}, p_failures{0};
};
counts runs;
void reset(int b_failures, int p_failures) {
  runs.a = runs.b = runs.c = runs.e = runs.p = runs.x = 0;
  runs.b_failures = b_failures;
  runs.p_failures = p_failures;
}

template <int Amount>
auto logged(const char* name) {
  return sg::write<&Work::log>(std::string(name)) | sg::write<&Work::total>(Amount);
}

struct a {
  using reads = sg::reads<>;
  using writes = sg::writes<&Work::log, &Work::total>;
  auto operator()(sg::view<Work, reads>) const {
    ++runs.a;
    return logged<1>("a");
  }
};
struct b {
  using reads = sg::reads<>;
  using writes = sg::writes<&Work::log, &Work::total>;
  auto operator()(sg::view<Work, reads>) const {
    ++runs.b;
    if (runs.b_failures-- > 0) throw std::runtime_error("b broke");
    return logged<10>("b");
  }
};
struct c {
  using reads = sg::reads<&Work::log>;
  using writes = sg::writes<&Work::log, &Work::total>;
  auto operator()(sg::view<Work, reads>) const {
    ++runs.c;
    return logged<100>("c");
  }
};
struct e {
  using reads = sg::reads<>;
  using writes = sg::writes<&Work::log, &Work::total>;
  auto operator()(sg::view<Work, reads>) const {
    ++runs.e;
    return logged<1000>("e");
  }
};
// Fails like b, one step before b runs: its sibling a's join arrival must outlive the failure.
struct p {
  using reads = sg::reads<>;
  using writes = sg::writes<&Work::log>;
  auto operator()(sg::view<Work, reads>) const {
    ++runs.p;
    if (runs.p_failures-- > 0) throw std::runtime_error("p broke");
    return sg::write<&Work::log>(std::string("p"));
  }
};
struct x {
  using reads = sg::reads<>;
  using writes = sg::writes<&Work::log>;
  auto operator()(sg::view<Work, reads>) const {
    ++runs.x;
    return sg::write<&Work::log>(std::string("x"));
  }
};
// A command: its goto target must run after a resume even though it is not run again.
struct jumper {
  using reads = sg::reads<>;
  using writes = sg::writes<&Work::log>;
  using goes = sg::goes<x>;
  auto operator()(sg::view<Work, reads>) const {
    ++runs.a;
    return sg::command{sg::write<&Work::log>(std::string("jumper")), sg::to<x>};
  }
};

// a and b in step 1; c joins them; a also leads to e.
using same_step = sg::graph<Work, sg::edge<sg::start, a>, sg::edge<sg::start, b>, sg::join<c, a, b>, sg::edge<a, e>,
                            sg::edge<c, sg::end>, sg::edge<e, sg::end>>;

template <class App>
void check_same_step_failure(App& app, typename App::store_type& store, const sg::thread_id& t) {
  Work input{};
  input.log = std::vector<std::string>{"in"};
  CHECK_THROWS_AS(app.invoke(input, t), sg::node_error);
  CHECK(runs.a == 1);
  CHECK(runs.b == 1);

  // The failed step left the state as at its start, and says what runs next.
  auto s = app.get_state(t);
  REQUIRE(s.has_value());
  CHECK(s->checkpoint_id == 1);
  CHECK(s->values.log == strings{"in"});
  CHECK(s->values.total == 0);
  CHECK(s->failed);
  CHECK(s->next == strings{"a", "b"});
  CHECK(store.stats().pending_writes == 2);  // a's result, b's error
  REQUIRE(s->errors.size() == 1);
  CHECK(s->errors[0].node == "b");
  CHECK(s->errors[0].message == "b broke");
  CHECK(store.stats().checkpoints == 1);

  Work out = app.resume(t);
  CHECK(runs.a == 1);  // replayed from its pending write, not run again
  CHECK(runs.b == 2);
  CHECK(runs.c == 1);  // the join fired: a's arrival survived the failure
  CHECK(runs.e == 1);  // a's edge too
  CHECK(out.log == strings{"in", "a", "b", "c", "e"});
  CHECK(out.total == 1111);
  auto done = app.get_state(t);
  CHECK(done->next.empty());
  CHECK_FALSE(done->failed);
  CHECK(done->values.total == 1111);
}

TEST_CASE_TEMPLATE("a failed step keeps its siblings' writes; resume runs only the failed node", F, DURABLE_FIXTURES) {
  reset(1, 0);
  F fx;
  auto app = sg::compile<same_step>(sg::with_store(fx.store));
  check_same_step_failure(app, fx.store, sg::thread_id{"fail"});
}

TEST_CASE_TEMPLATE("the same on the thread pool", F, DURABLE_FIXTURES) {
  reset(1, 0);
  F fx;
  auto app = sg::compile<same_step>(sg::with_store(fx.store), sg::with_executor(sg::thread_pool{2}));
  check_same_step_failure(app, fx.store, sg::thread_id{"fail-pool"});
}

TEST_CASE_TEMPLATE("a node that fails twice: the kept writes are neither rerun nor duplicated", F, DURABLE_FIXTURES) {
  reset(2, 0);
  F fx;
  auto app = sg::compile<same_step>(sg::with_store(fx.store));
  const sg::thread_id t{"twice"};
  CHECK_THROWS_AS(app.invoke(Work{}, t), sg::node_error);
  CHECK_THROWS_WITH_AS(app.resume(t), doctest::Contains("b broke"), sg::node_error);
  CHECK(runs.a == 1);
  CHECK(runs.b == 2);
  CHECK(fx.store.stats().pending_writes == 3);  // a's result, b's error of each attempt
  CHECK(fx.store.stats().checkpoints == 1);
  Work out = app.resume(t);
  CHECK(runs.a == 1);
  CHECK(runs.b == 3);
  CHECK(out.log == strings{"a", "b", "c", "e"});
  CHECK(out.total == 1111);
}

TEST_CASE_TEMPLATE("a join whose sources ran in different steps fires after a failure between them", F,
                   DURABLE_FIXTURES) {
  reset(0, 1);
  F fx;
  // Step 1: a and p (p fails once); step 2: b (after p); then the join c of a and b.
  using G = sg::graph<Work, sg::edge<sg::start, a>, sg::edge<sg::start, p>, sg::edge<p, b>, sg::join<c, a, b>,
                      sg::edge<c, sg::end>>;
  auto app = sg::compile<G>(sg::with_store(fx.store));
  const sg::thread_id t{"join"};
  CHECK_THROWS_AS(app.invoke(Work{}, t), sg::node_error);
  Work out = app.resume(t);
  CHECK(runs.a == 1);
  CHECK(runs.p == 2);
  CHECK(runs.b == 1);
  CHECK(runs.c == 1);
  CHECK(out.log == strings{"a", "p", "b", "c"});
  CHECK(out.total == 111);
}

TEST_CASE_TEMPLATE("a command's goto survives the failure of its step", F, DURABLE_FIXTURES) {
  reset(1, 0);
  F fx;
  using G = sg::graph<Work, sg::edge<sg::start, jumper>, sg::edge<sg::start, b>, sg::edge<jumper, sg::end>,
                      sg::edge<b, sg::end>, sg::edge<x, sg::end>>;
  auto app = sg::compile<G>(sg::with_store(fx.store));
  const sg::thread_id t{"cmd"};
  CHECK_THROWS_AS(app.invoke(Work{}, t), sg::node_error);
  Work out = app.resume(t);
  CHECK(runs.a == 1);  // jumper ran once
  CHECK(runs.x == 1);
  CHECK(out.log == strings{"jumper", "b", "x"});
}

TEST_CASE("a failed step resumes from another store handle on the same SQLite file") {
  reset(1, 0);
  temp_db file("failure-reopen");
  {
    sg::sqlite_store store(file.path());
    auto app = sg::compile<same_step>(sg::with_store(store));
    CHECK_THROWS_AS(app.invoke(Work{}, sg::thread_id{"t"}), sg::node_error);
  }
  sg::sqlite_store store(file.path());
  auto app = sg::compile<same_step>(sg::with_store(store));
  Work out = app.resume(sg::thread_id{"t"});
  CHECK(runs.a == 1);
  CHECK(out.log == strings{"a", "b", "c", "e"});
}

TEST_CASE_TEMPLATE("the node_error of a checkpointed run names the node, the step and the cause", F, DURABLE_FIXTURES) {
  reset(1, 0);
  F fx;
  auto app = sg::compile<same_step>(sg::with_store(fx.store));
  try {
    app.invoke(Work{}, sg::thread_id{"named"});
    FAIL("no error");
  } catch (const sg::node_error& err) {
    CHECK(err.node() == "b");
    CHECK(err.step() == 1);
    CHECK(std::string(err.what()).find("b broke") != std::string::npos);
  }
}

// ---- failure records: what each failed task threw, kept with the step's checkpoint -------

// a and b in step 1, and b2, which fails with b while b2_failures lasts.
std::atomic<int> b2_failures{0};
struct b2 {
  using reads = sg::reads<>;
  using writes = sg::writes<&Work::total>;
  auto operator()(sg::view<Work, reads>) const {
    if (b2_failures-- > 0) throw std::invalid_argument("b2 got a bad argument");
    return sg::write<&Work::total>(5);
  }
};
// Throws something that is not a std::exception.
struct odd {
  using reads = sg::reads<>;
  using writes = sg::writes<&Work::total>;
  auto operator()(sg::view<Work, reads>) const -> decltype(sg::write<&Work::total>(0)) { throw 42; }
};

TEST_CASE_TEMPLATE("a failed step records each failed task's message; get_state and history show it", F,
                   DURABLE_FIXTURES) {
  reset(1, 0);
  b2_failures = 1;
  F fx;
  using G = sg::graph<Work, sg::edge<sg::start, a>, sg::edge<sg::start, b>, sg::edge<sg::start, b2>,
                      sg::edge<a, sg::end>, sg::edge<b, sg::end>, sg::edge<b2, sg::end>>;
  auto app = sg::compile<G>(sg::with_store(fx.store));
  const sg::thread_id t{"records"};
  CHECK_THROWS_WITH_AS(app.invoke(Work{}, t), doctest::Contains("b broke"), sg::node_error);  // the first in node order

  // The store: a's result, and one "__error__" row per failed task, at the step's checkpoint.
  const auto rows = fx.store.pending_writes(t.value, 1);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] == sg::pending_write{"a#result", 0, "__result__", rows[0].value});
  CHECK(rows[1] == sg::pending_write{"b#error", 0, "__error__", R"({"message":"b broke","type":"std::runtime_error"})"});
  CHECK(rows[2] ==
        sg::pending_write{"b2#error", 0, "__error__", R"({"message":"b2 got a bad argument","type":"std::invalid_argument"})"});

  // get_state and history: the failed tasks in node order, with what they threw.
  const auto s = app.get_state(t);
  REQUIRE(s.has_value());
  CHECK(s->failed);
  CHECK(s->next == strings{"a", "b", "b2"});
  REQUIRE(s->errors.size() == 2);
  CHECK(s->errors[0].node == "b");
  CHECK(s->errors[0].message == "b broke");
  CHECK(s->errors[0].type == "std::runtime_error");
  CHECK(s->errors[0].attempts == 1);
  CHECK(s->errors[0].path() == "b");
  CHECK_FALSE(s->errors[0].send.has_value());
  CHECK(s->errors[1].node == "b2");
  CHECK(s->errors[1].message == "b2 got a bad argument");
  CHECK(s->errors[1].type == "std::invalid_argument");
  const auto h = app.history(t);
  REQUIRE(h.size() == 1);
  CHECK(h[0].errors.size() == 2);

  // Resume: the records are not writes. a is not run again, b and b2 are; the run ends as
  // one without the failure would, and the new checkpoint has no errors.
  Work out = app.resume(t);
  CHECK(runs.a == 1);
  CHECK(runs.b == 2);
  CHECK(out.log == strings{"a", "b"});
  CHECK(out.total == 16);
  const auto done = app.get_state(t);
  CHECK(done->checkpoint_id == 2);
  CHECK(done->parent_id == 1);
  CHECK_FALSE(done->failed);
  CHECK(done->errors.empty());
  CHECK(fx.store.pending_writes(t.value, 2).empty());
  // The failed attempt stays in history, with the checkpoint whose step it failed.
  const auto first = app.get_state(t, sg::checkpoint_id{1});
  CHECK(first.errors.size() == 2);
  CHECK(first.failed);
  CHECK(app.history(t)[1].errors.size() == 2);
}

TEST_CASE_TEMPLATE("a task that fails again adds an attempt; the newest message is the task's error", F,
                   DURABLE_FIXTURES) {
  // b throws twice, b2 three times.
  reset(2, 0);
  F fx;
  b2_failures = 3;
  using G = sg::graph<Work, sg::edge<sg::start, b>, sg::edge<sg::start, b2>, sg::edge<b, sg::end>, sg::edge<b2, sg::end>>;
  auto app = sg::compile<G>(sg::with_store(fx.store));
  const sg::thread_id t{"again"};
  CHECK_THROWS_AS(app.invoke(Work{}, t), sg::node_error);
  CHECK_THROWS_AS(app.resume(t), sg::node_error);
  CHECK_THROWS_AS(app.resume(t), sg::node_error);  // b succeeds, b2 fails a third time
  auto s = app.get_state(t);
  REQUIRE(s->errors.size() == 2);
  CHECK(s->errors[0].node == "b");
  CHECK(s->errors[0].attempts == 2);
  CHECK(s->errors[1].node == "b2");
  CHECK(s->errors[1].attempts == 3);
  std::vector<std::int32_t> b2_rows;
  for (const auto& w : fx.store.pending_writes(t.value, 1))
    if (w.task == "b2#error") b2_rows.push_back(w.index);
  CHECK(b2_rows == std::vector<std::int32_t>{0, 1, 2});
  Work out = app.resume(t);
  CHECK(runs.b == 3);  // b's result of the third run was kept; it did not run a fourth time
  CHECK(out.total == 15);
  CHECK(app.get_state(t)->errors.empty());
}

TEST_CASE_TEMPLATE("a step whose only node fails is recorded; so is a throw of a non-exception", F, DURABLE_FIXTURES) {
  reset(1, 0);
  F fx;
  using lone = sg::graph<Work, sg::edge<sg::start, b>, sg::edge<b, sg::end>>;
  auto app = sg::compile<lone>(sg::with_store(fx.store));
  CHECK_THROWS_AS(app.invoke(Work{}, sg::thread_id{"lone"}), sg::node_error);
  auto s = app.get_state(sg::thread_id{"lone"});
  CHECK(s->failed);  // nothing succeeded, so only the record says so
  REQUIRE(s->errors.size() == 1);
  CHECK(s->errors[0].message == "b broke");
  CHECK(app.resume(sg::thread_id{"lone"}).total == 10);

  using odd_graph = sg::graph<Work, sg::edge<sg::start, odd>, sg::edge<odd, sg::end>>;
  auto odd_app = sg::compile<odd_graph>(sg::with_store(fx.store));
  CHECK_THROWS_AS(odd_app.invoke(Work{}, sg::thread_id{"odd"}), sg::node_error);
  auto o = odd_app.get_state(sg::thread_id{"odd"});
  REQUIRE(o->errors.size() == 1);
  CHECK(o->errors[0].message == "an exception not derived from std::exception");
  CHECK(o->errors[0].type == "int");
}

TEST_CASE_TEMPLATE("a store without failure records (written before them) still loads and resumes", F,
                   DURABLE_FIXTURES) {
  reset(1, 0);
  F fx;
  tampering_store<typename F::store_type> old_store(fx.store);
  // What an older build left: the kept results, no "__error__" rows.
  old_store.tamper_writes = [](std::int64_t, std::vector<sg::pending_write>& w) {
    std::erase_if(w, [](const sg::pending_write& r) { return r.channel == "__error__"; });
  };
  auto app = sg::compile<same_step>(sg::with_store(old_store));
  const sg::thread_id t{"old"};
  CHECK_THROWS_AS(app.invoke(Work{}, t), sg::node_error);
  auto s = app.get_state(t);
  CHECK(s->failed);  // a's kept result says so
  CHECK(s->errors.empty());
  Work out = app.resume(t);
  CHECK(runs.a == 1);
  CHECK(out.total == 1111);
}

TEST_CASE_TEMPLATE("failure records with exit durability go to the run's one checkpoint", F, DURABLE_FIXTURES) {
  reset(0, 0);
  F fx;
  // Step 1 (a, p) succeeds; step 2 (b) fails: exit mode commits one checkpoint for the run.
  runs.b_failures = 1;
  using G = sg::graph<Work, sg::edge<sg::start, a>, sg::edge<a, b>, sg::edge<b, sg::end>>;
  auto app = sg::compile<G>(sg::with_store(fx.store));
  const sg::thread_id t{"exit"};
  CHECK_THROWS_AS(app.invoke(Work{}, t, sg::run_config{.durability = sg::durability::exit}), sg::node_error);
  auto s = app.get_state(t);
  REQUIRE(s.has_value());
  CHECK(s->next == strings{"b"});
  REQUIRE(s->errors.size() == 1);
  CHECK(s->errors[0].node == "b");
  CHECK(app.resume(t).total == 11);
}

}  // namespace durable_failures
