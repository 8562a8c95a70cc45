// Partial inputs (contract §6): `invoke(sg::write<&S::a>(x) | ..., thread)` writes only the
// channels it names, through their reducers, and every other channel keeps the thread's
// value; `invoke(State, thread)` writes every channel, and its checkpoint says so.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace durable_test;

namespace durable_partial {

// Records each call, so that a test sees whether an input passed through it.
struct recording_concat {
  static inline std::vector<std::size_t> calls;  // the size of each list it was given
  std::vector<std::string> operator()(std::vector<std::string> a, std::vector<std::string> b) const {
    calls.push_back(b.size());
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }
};

struct Turn {
  sg::append<Msg> messages;
  std::string mode;  // a plain last-value channel
  sg::counter<int> turn;
  sg::reduced<std::vector<std::string>, recording_concat> notes;
};

struct reply {
  using reads = sg::reads<&Turn::messages, &Turn::mode, &Turn::turn>;
  using writes = sg::writes<&Turn::messages>;
  auto operator()(sg::view<Turn, reads> in) const {
    return sg::write<&Turn::messages>(
        Msg{"ai", in.get<&Turn::mode>() + " " + std::to_string(in.get<&Turn::turn>()) + " " +
                      std::to_string(in.get<&Turn::messages>().size())});
  }
};
using turns = sg::graph<Turn, sg::edge<sg::start, reply>, sg::edge<reply, sg::end>>;

template <class App>
void continues_with_partial_inputs(App& app) {
  const sg::thread_id t{"partial"};
  Turn first = app.invoke(Turn{.messages = {Msg{"user", "hi"}}, .mode = "formal", .turn = 1, .notes = {"n1"}}, t);
  CHECK(contents(first.messages) == strings{"user:hi", "ai:formal 1 1"});
  recording_concat::calls.clear();

  // Only messages and turn are written: mode keeps "formal", notes' reducer is not called.
  Turn second = app.invoke(sg::write<&Turn::messages>(Msg{"user", "again"}) | sg::write<&Turn::turn>(1), t);
  CHECK(contents(second.messages) == strings{"user:hi", "ai:formal 1 1", "user:again", "ai:formal 2 3"});
  CHECK(second.mode == "formal");
  CHECK(second.turn == 2);
  CHECK(second.notes.value() == strings{"n1"});
  CHECK(recording_concat::calls.empty());
  // The checkpoints say the same, read back from the store.
  auto s = app.get_state(t);
  REQUIRE(s.has_value());
  CHECK(s->checkpoint_id == 4);
  CHECK(s->values.mode == "formal");
  CHECK(s->values.turn == 2);
  CHECK(s->values.notes.value() == strings{"n1"});
  auto input = app.get_state(t, sg::checkpoint_id{3});
  CHECK(input.source == sg::checkpoint_source::input);
  CHECK(contents(input.values.messages) == strings{"user:hi", "ai:formal 1 1", "user:again"});
  CHECK(input.values.mode == "formal");

  // A whole state writes every channel: mode goes back to its default, notes' reducer is
  // called with an empty list, and the stored checkpoint agrees with the run.
  Turn third = app.invoke(Turn{.messages = {Msg{"user", "whole"}}}, t);
  CHECK(third.mode == "");
  CHECK(contents(third.messages).back() == "ai: 2 5");
  CHECK(recording_concat::calls == std::vector<std::size_t>{0});
  CHECK(app.get_state(t)->values.mode == "");
  CHECK(app.get_state(t, sg::checkpoint_id{5}).values.mode == "");

  // A fork with a partial input: onto checkpoint 2, only mode changes.
  Turn forked = app.invoke(sg::write<&Turn::mode>("casual"), t, sg::checkpoint_id{2});
  CHECK(contents(forked.messages) == strings{"user:hi", "ai:formal 1 1", "ai:casual 1 2"});
  CHECK(forked.turn == 1);
  CHECK(app.get_state(t)->values.mode == "casual");

  // sg::maybe_write with no value writes nothing.
  Turn maybe = app.invoke(sg::maybe_write<&Turn::mode>(std::optional<std::string>{}) | sg::write<&Turn::turn>(5), t);
  CHECK(maybe.mode == "casual");
  CHECK(maybe.turn == 6);
}

TEST_CASE_TEMPLATE("a partial input keeps every channel it does not name", F, DURABLE_FIXTURES) {
  F fx;
  auto app = sg::compile<turns>(sg::with_store(fx.store));
  continues_with_partial_inputs(app);
}

TEST_CASE("a partial input with a context, on the thread pool") {
  sg::memory_store store;
  auto app = sg::compile<turns>(sg::with_store(store), sg::with_executor(sg::thread_pool{2}));
  continues_with_partial_inputs(app);
  sg::run_context ctx;
  Turn out = app.invoke(sg::write<&Turn::turn>(10), sg::thread_id{"partial"}, ctx);
  CHECK(out.turn == 16);
  CHECK(out.mode == "casual");
}

TEST_CASE("a partial input on an app with a store but no thread stores nothing") {
  sg::memory_store store;
  auto app = sg::compile<turns>(sg::with_store(store));
  Turn out = app.invoke(sg::write<&Turn::mode>("x"));
  CHECK(contents(out.messages) == strings{"ai:x 0 0"});
  CHECK(store.stats().checkpoints == 0);
}

}  // namespace durable_partial
