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
  CHECK(store.stats().pending_writes == 1);  // a's result
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
  CHECK(fx.store.stats().pending_writes == 1);
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

}  // namespace durable_failures
