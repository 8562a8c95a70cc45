// A graph declared as a struct deriving from sg::graph<...> (docs/guide.md, "Large graphs")
// checkpoints, pauses, resumes and keeps history as the same graph declared with `using`.
#include "fixtures.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace durable_test;

namespace durable_graph_as_struct {

struct chat_struct : sg::graph<Chat, sg::edge<sg::start, agent>, sg::branch<agent, route>, sg::edge<tools, agent>> {};

TEST_CASE_TEMPLATE("a graph declared as a struct pauses, resumes and keeps history like the alias", F, DURABLE_FIXTURES) {
  F fx;
  auto by_struct = sg::compile<chat_struct>(sg::with_store(fx.store), sg::interrupt_before<tools>{});
  auto by_alias = sg::compile<chat_graph>(sg::with_store(fx.store), sg::interrupt_before<tools>{});
  const sg::thread_id s{"struct"}, a{"alias"};
  const Chat input{.messages = {Msg{"user", "hi"}}};

  Chat paused = by_struct.invoke(input, s);
  CHECK(contents(paused.messages) == strings{"user:hi", "ai:call tool"});
  CHECK(by_struct.get_state(s)->next == strings{"tools"});
  by_struct.resume(s);
  Chat done = by_struct.resume(s);
  CHECK(contents(done.messages) == strings{"user:hi", "ai:call tool", "tool:42", "ai:call tool", "tool:42", "ai:done"});
  CHECK(done.calls == 3);

  by_alias.invoke(input, a);
  by_alias.resume(a);
  by_alias.resume(a);
  auto ss = by_struct.history(s);
  auto as = by_alias.history(a);
  REQUIRE(ss.size() == as.size());
  CHECK(ss.size() == 6);  // the input and five steps
  for (std::size_t i = 0; i < ss.size(); ++i) {
    CHECK(ss[i].checkpoint_id == as[i].checkpoint_id);
    CHECK(ss[i].next == as[i].next);
    CHECK(contents(ss[i].values.messages) == contents(as[i].values.messages));
  }

  // Each reads the other's thread: the two declarations are one graph to the store.
  CHECK(contents(by_alias.get_state(s)->values.messages) == contents(done.messages));
  const sg::thread_id mixed{"mixed"};
  by_alias.invoke(input, mixed);
  Chat continued = by_struct.resume(mixed);
  CHECK(contents(continued.messages) == strings{"user:hi", "ai:call tool", "tool:42", "ai:call tool"});

  // A fresh app of the struct graph reads the thread back, and update_state takes a write.
  auto reopened = sg::compile<chat_struct>(sg::with_store(fx.store));
  CHECK(contents(reopened.get_state(s)->values.messages) == contents(done.messages));
  reopened.update_state(s, sg::write<&Chat::calls>(10), sg::as_node<agent>);
  CHECK(reopened.get_state(s)->values.calls == 13);
}

}  // namespace durable_graph_as_struct
