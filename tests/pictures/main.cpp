// Pictures drawn from a compiled app, and proof that the graphs the other cases draw are
// graphs sg::compile accepts and runs.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "graphs.hpp"

#include <stategraph/pictures.hpp>
#include <stategraph/stategraph.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace pictures_test;

TEST_SUITE_BEGIN("pictures");

TEST_CASE("the drawn graphs are valid graphs, and run as drawn") {
  CHECK(static_cast<int>(sg::compile<chain>().invoke(Count{}).steps) == 2);

  const Chat chat = sg::compile<agent_loop>().invoke(Chat{.messages = {"hi"}});
  CHECK(static_cast<int>(chat.calls) == 2);  // agent, tools, agent: hi, call tool, 42, done
  CHECK(chat.messages.size() == 4);

  const Log joined = sg::compile<fork_join>().invoke(Log{});
  CHECK(std::vector<std::string>(joined.log) == std::vector<std::string>{"split", "left", "right", "merge"});

  const Log staged = sg::compile<two_stages>().invoke(Log{});
  CHECK(std::vector<std::string>(staged.log) == std::vector<std::string>{"sketch", "refine", "execute"});

  CHECK(std::vector<std::string>(sg::compile<namesake_stages>().invoke(Log{}).log) ==
        std::vector<std::string>{"sketch", "refine"});

  const Watch watched = sg::compile<reactive>().invoke(Watch{});
  CHECK(static_cast<int>(watched.ticks) == 1);
  CHECK(watched.seen.size() == 1);

  // step 1: manager, mapper; 2: worker, piece(1), piece(2); 3: manager, piece(11) sent by
  // scatter after worker; 4: worker; 5: manager (goes to end), piece(12).
  const Work work = sg::compile<commands_and_sends>().invoke(Work{});
  CHECK(std::vector<std::string>(work.done) == std::vector<std::string>{"w", "1", "2", "11", "w", "12"});
  CHECK(static_cast<int>(work.rounds) == 2);

  CHECK(sg::compile<odd_names>().invoke(Odd{.plan = {"p"}}).plan.size() == 1);
}

TEST_CASE("an app is drawn as its graph") {
  const auto loop = sg::compile<agent_loop>();
  CHECK(sg::to_mermaid(loop) == sg::to_mermaid<agent_loop>());
  CHECK(sg::to_dot(loop, {.channels = true}) == sg::to_dot<agent_loop>({.channels = true}));
  const auto staged = sg::compile<two_stages>();
  CHECK(sg::to_dot(staged) == sg::to_dot<two_stages>());
}

// An app with lambda nodes draws them as bound: stage and channels come from the lambda
// node, as the graph alone cannot say them.
TEST_CASE("an app is drawn with its lambda nodes bound") {
  const Log summed = sg::compile<with_lambda>(make_summarize()).invoke(Log{});
  CHECK(std::vector<std::string>(summed.log) == std::vector<std::string>{"split", "1"});

  const auto app = sg::compile<with_lambda>(make_summarize());
  const sg::picture_options channels{.channels = true};
  CHECK(sg::to_dot(app, channels) == sg::to_dot<with_lambda, summarize_node>(channels));
  CHECK(sg::to_mermaid(app, channels) == sg::to_mermaid<with_lambda, summarize_node>(channels));
  // Unbound, the tag has no stage and no channels: the pictures differ.
  CHECK(sg::to_dot(app, channels) != sg::to_dot<with_lambda>(channels));
}
TEST_SUITE_END();
