// Every channel kind (plain, last_value, ephemeral, append, counter, bounded, reduced) checkpoints
// in every position a value is stored in: the graph's state, a subgraph's state (shared
// schema and mapped), a pending write kept when a step fails or pauses (a subgraph's
// included: its bounded channel hands back an sg::assign_value), and queued and kept sends.
// Each run is compared with the same graph run without a store, and with the values written.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

using namespace durable_test;
using namespace std::chrono_literals;

namespace durable_kinds {

using word = std::optional<std::string>;

// One channel of each kind, each of a type nlohmann 3.11.2 cannot code by itself.
struct Kinds {
  std::optional<int> plain;
  sg::last_value<std::variant<int, std::string>> last;
  sg::ephemeral<std::map<std::string, int>> flash;
  sg::append<word> log;
  sg::counter<std::chrono::milliseconds> waited;
  sg::bounded<std::string, 2> recent;
  sg::reduced<std::set<std::string>, sg::set_union> tags;
  nlohmann::json doc;
};

// The same channels in a state of its own: a mapped subgraph's.
struct Inner {
  std::optional<int> plain;
  sg::last_value<std::variant<int, std::string>> last;
  sg::ephemeral<std::map<std::string, int>> flash;
  sg::append<word> log;
  sg::counter<std::chrono::milliseconds> waited;
  sg::bounded<std::string, 2> recent;
  sg::reduced<std::set<std::string>, sg::set_union> tags;
  nlohmann::json doc;
};

inline int every_runs = 0;
inline int flaky_failures = 0;

// Writes every channel of S.
template <class S>
struct every_of {
  using writes = sg::writes<&S::plain, &S::last, &S::flash, &S::log, &S::waited, &S::recent, &S::tags, &S::doc>;
  auto operator()(sg::view<S, sg::reads<>>) const {
    ++every_runs;
    return sg::write<&S::plain>(std::optional<int>(7)) |
           sg::write<&S::last>(std::variant<int, std::string>(std::string("s"))) |
           sg::write<&S::flash>(std::map<std::string, int>{{"k", 1}}) |
           sg::write<&S::log>(std::vector<word>{"a", std::nullopt}) | sg::write<&S::waited>(250ms) |
           sg::write<&S::recent>(std::vector<std::string>{"x", "y", "z"}) |
           sg::write<&S::tags>(std::set<std::string>{"t"}) |
           sg::write<&S::doc>(nlohmann::json::parse(R"({"k":[1,null],"o":{}})"));
  }
};
using every = every_of<Kinds>;
using inner_every = every_of<Inner>;

// Beside `every` in its step: fails while flaky_failures lasts.
struct flaky {
  using writes = sg::writes<>;
  auto operator()(sg::view<Kinds, sg::reads<>>) const {
    if (flaky_failures-- > 0) throw std::runtime_error("flaky");
    return sg::patch<>{};
  }
};
// Beside `every` in its step: pauses for an answer.
struct asks {
  using writes = sg::writes<&Kinds::tags>;
  auto operator()(sg::view<Kinds, sg::reads<>>, sg::run_context& ctx) const {
    return sg::write<&Kinds::tags>(ctx.interrupt<std::string>("tag?"));
  }
};

// The child graphs: one on the parent's schema, one on its own, mapped channel by channel.
using shared_child = sg::graph<Kinds, sg::edge<sg::start, every>, sg::edge<every, sg::end>>;
using mapped_child = sg::graph<Inner, sg::edge<sg::start, inner_every>, sg::edge<inner_every, sg::end>>;
struct shared_tag {};
struct mapped_tag {};
using shared_sub = sg::subgraph<shared_tag, shared_child>;
using mapped_sub = sg::subgraph<mapped_tag, mapped_child, sg::maps<&Kinds::plain, &Inner::plain>,
                                sg::maps<&Kinds::last, &Inner::last>, sg::maps<&Kinds::flash, &Inner::flash>,
                                sg::maps<&Kinds::log, &Inner::log>, sg::maps<&Kinds::waited, &Inner::waited>,
                                sg::maps<&Kinds::recent, &Inner::recent>, sg::maps<&Kinds::tags, &Inner::tags>,
                                sg::maps<&Kinds::doc, &Inner::doc>>;

// Where the writes come from: the node itself, or a subgraph of either kind.
template <class Writer>
using alone = sg::graph<Kinds, sg::edge<sg::start, Writer>, sg::edge<Writer, sg::end>>;
template <class Writer>
using beside_flaky = sg::graph<Kinds, sg::edge<sg::start, Writer>, sg::edge<sg::start, flaky>,
                               sg::edge<Writer, sg::end>, sg::edge<flaky, sg::end>>;
template <class Writer>
using beside_asks = sg::graph<Kinds, sg::edge<sg::start, Writer>, sg::edge<sg::start, asks>,
                              sg::edge<Writer, sg::end>, sg::edge<asks, sg::end>>;

Kinds input() {
  Kinds k{};
  k.log = std::vector<word>{"in"};
  k.recent = std::vector<std::string>{"r0"};
  k.tags = std::set<std::string>{"t0"};
  k.waited = 1000ms;
  return k;
}

// Every channel but the ephemeral one, against the values `every` writes onto input().
void check_written(const Kinds& k) {
  CHECK(k.plain == 7);
  CHECK(k.last.value() == std::variant<int, std::string>(std::string("s")));
  CHECK(k.log.value() == std::vector<word>{"in", "a", std::nullopt});
  CHECK(k.waited.value() == 1250ms);
  CHECK(k.recent.value() == std::vector<std::string>{"y", "z"});
  CHECK(k.tags.value().count("t0") == 1);
  CHECK(k.tags.value().count("t") == 1);
  CHECK(k.doc == nlohmann::json::parse(R"({"k":[1,null],"o":{}})"));
}
void check_same(const Kinds& a, const Kinds& b) {
  CHECK(a.plain == b.plain);
  CHECK(a.last.value() == b.last.value());
  CHECK(a.flash.value() == b.flash.value());
  CHECK(a.log.value() == b.log.value());
  CHECK(a.waited.value() == b.waited.value());
  CHECK(a.recent.value() == b.recent.value());
  CHECK(a.tags.value() == b.tags.value());
  CHECK(a.doc == b.doc);
}

// Runs graph G on a thread and checks the result, then what a new app on the same store reads.
template <class G, class F>
void runs_like_plain(F& fx) {
  const Kinds plain = sg::compile<G>().invoke(input());
  check_written(plain);
  const sg::thread_id t{"t"};
  {
    auto app = sg::compile<G>(sg::with_store(fx.store));
    check_same(app.invoke(input(), t), plain);
  }
  auto app = sg::compile<G>(sg::with_store(fx.store));
  check_same(app.get_state(t)->values, plain);
}

TEST_CASE_TEMPLATE("every channel kind checkpoints in the graph's state", F, DURABLE_FIXTURES) {
  F fx;
  runs_like_plain<alone<every>>(fx);
}

TEST_CASE_TEMPLATE("every channel kind checkpoints through a subgraph on the parent's schema", F, DURABLE_FIXTURES) {
  F fx;
  runs_like_plain<alone<shared_sub>>(fx);
}

TEST_CASE_TEMPLATE("every channel kind checkpoints through a subgraph with a state of its own", F,
                   DURABLE_FIXTURES) {
  F fx;
  runs_like_plain<alone<mapped_sub>>(fx);
}

// The writer's result is kept as a pending write when its sibling fails; resume replays it
// (the writer does not run again) and the run ends as a plain one does.
template <class Writer, class F>
void kept_when_a_sibling_fails(F& fx) {
  flaky_failures = 0;
  const Kinds plain = sg::compile<beside_flaky<Writer>>().invoke(input());
  check_written(plain);
  const sg::thread_id t{"t"};
  flaky_failures = 1;
  every_runs = 0;
  {
    auto app = sg::compile<beside_flaky<Writer>>(sg::with_store(fx.store));
    CHECK_THROWS_AS(app.invoke(input(), t), sg::node_error);
    CHECK(every_runs == 1);
    CHECK(app.get_state(t)->failed);
  }
  auto app = sg::compile<beside_flaky<Writer>>(sg::with_store(fx.store));  // reads the kept write back
  const Kinds out = app.resume(t);
  CHECK(every_runs == 1);
  check_same(out, plain);
  check_same(app.get_state(t)->values, plain);
}

TEST_CASE_TEMPLATE("every channel kind survives as a pending write of a failed step", F, DURABLE_FIXTURES) {
  SUBCASE("written by a node") {
    F fx;
    kept_when_a_sibling_fails<every>(fx);
  }
  SUBCASE("written by a subgraph on the parent's schema (a bounded channel: sg::assign_value)") {
    F fx;
    kept_when_a_sibling_fails<shared_sub>(fx);
  }
  SUBCASE("written by a subgraph with a state of its own") {
    F fx;
    kept_when_a_sibling_fails<mapped_sub>(fx);
  }
}

// The same when the sibling pauses on an interrupt, answered by a new app.
template <class Writer, class F>
void kept_when_a_sibling_pauses(F& fx) {
  const sg::thread_id t{"t"};
  every_runs = 0;
  {
    auto app = sg::compile<beside_asks<Writer>>(sg::with_store(fx.store));
    app.invoke(input(), t);
    CHECK(every_runs == 1);
    CHECK(app.get_state(t)->interrupts.size() == 1);
  }
  auto app = sg::compile<beside_asks<Writer>>(sg::with_store(fx.store));
  const Kinds out = app.resume(t, std::string("answered"));
  CHECK(every_runs == 1);
  check_written(out);
  CHECK(out.tags.value() == std::set<std::string>{"answered", "t", "t0"});
  CHECK(out.flash.value() == std::map<std::string, int>{{"k", 1}});
}

TEST_CASE_TEMPLATE("every channel kind survives as a pending write of a paused step", F, DURABLE_FIXTURES) {
  SUBCASE("written by a node") {
    F fx;
    kept_when_a_sibling_pauses<every>(fx);
  }
  SUBCASE("written by a subgraph on the parent's schema") {
    F fx;
    kept_when_a_sibling_pauses<shared_sub>(fx);
  }
  SUBCASE("written by a subgraph with a state of its own") {
    F fx;
    kept_when_a_sibling_pauses<mapped_sub>(fx);
  }
}

// ---- sends: payloads of the codec's types, queued in a checkpoint and kept in a result -----

using job = std::variant<std::monostate, std::chrono::seconds, std::map<std::string, std::optional<int>>>;
inline int fan_runs = 0;

struct work;
struct fan {
  using sends = sg::sends<work>;
  std::vector<sg::send_to<work, job>> operator()(sg::view<Kinds, sg::reads<>>) const {
    ++fan_runs;
    return {sg::send<work>(job{}), sg::send<work>(job{90s}),
            sg::send<work>(job{std::map<std::string, std::optional<int>>{{"n", 2}, {"z", std::nullopt}}})};
  }
};
struct work {
  using writes = sg::writes<&Kinds::log, &Kinds::waited>;
  auto operator()(sg::view<Kinds, sg::reads<>>, const job& j) const {
    std::string what = "none";
    std::chrono::milliseconds took{};
    if (auto* s = std::get_if<std::chrono::seconds>(&j)) {
      what = "secs";
      took = *s;
    } else if (auto* m = std::get_if<2>(&j)) {
      what = "map" + std::to_string(m->size()) + (m->at("z") ? "z" : "") + std::to_string(m->at("n").value_or(0));
    }
    return sg::write<&Kinds::log>(word(what)) | sg::write<&Kinds::waited>(took);
  }
};
using send_graph = sg::graph<Kinds, sg::edge<sg::start, fan>, sg::edge<sg::start, flaky>, sg::edge<flaky, sg::end>,
                             sg::edge<work, sg::end>>;

void check_worked(const Kinds& k) {
  CHECK(k.log.value() == std::vector<word>{"in", "none", "secs", "map22"});
  CHECK(k.waited.value() == 91000ms);
}

TEST_CASE_TEMPLATE("send payloads of the codec's types survive in a checkpoint and in a kept result", F,
                   DURABLE_FIXTURES) {
  flaky_failures = 0;
  check_worked(sg::compile<send_graph>().invoke(input()));
  const sg::thread_id t{"t"};
  SUBCASE("queued in a checkpoint, read by a new app") {
    F fx;
    {
      auto app = sg::compile<send_graph>(sg::with_store(fx.store), sg::interrupt_before<work>{});
      app.invoke(input(), t);
      CHECK(app.get_state(t)->next == strings{"work"});
    }
    auto app = sg::compile<send_graph>(sg::with_store(fx.store));
    check_worked(app.resume(t));
  }
  SUBCASE("kept in the result of a failed step") {
    F fx;
    fan_runs = 0;
    flaky_failures = 1;
    {
      auto app = sg::compile<send_graph>(sg::with_store(fx.store));
      CHECK_THROWS_AS(app.invoke(input(), t), sg::node_error);
    }
    auto app = sg::compile<send_graph>(sg::with_store(fx.store));
    check_worked(app.resume(t));
    CHECK(fan_runs == 1);
  }
}

}  // namespace durable_kinds
