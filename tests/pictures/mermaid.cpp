// sg::to_mermaid: the exact text for small graphs, one kind of link per case.
#include "graphs.hpp"

#include <stategraph/pictures.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace pictures_test;

namespace {
// Every picture ends with the style of the two pseudo-nodes.
const std::string pseudo_style = "  classDef pseudo fill:#ffffff,stroke:#51608c\n  class __start__,__end__ pseudo\n";
}  // namespace

TEST_SUITE_BEGIN("to_mermaid");

TEST_CASE("a static chain: solid edges between __start__, the nodes and __end__") {
  CHECK(sg::to_mermaid<chain>() == text(R"txt(
flowchart TD
  __start__(["__start__"])
  first
  second
  __end__(["__end__"])
  __start__ --> first
  first --> second
  second --> __end__
)txt") + pseudo_style);
}

TEST_CASE("a branch: one dashed edge per target, labelled with the router") {
  CHECK(sg::to_mermaid<agent_loop>() == text(R"txt(
flowchart TD
  __start__(["__start__"])
  agent
  tools
  __end__(["__end__"])
  __start__ --> agent
  agent -.->|route| tools
  agent -.->|route| __end__
  tools --> agent
)txt") + pseudo_style);
}

TEST_CASE("a join: the sources meet at a barrier before its target") {
  CHECK(sg::to_mermaid<fork_join>() == text(R"txt(
flowchart TD
  __start__(["__start__"])
  split
  left
  right
  merge
  __end__(["__end__"])
  join_merge{{"join"}}
  __start__ --> split
  split --> left
  split --> right
  merge --> __end__
  left --> join_merge
  right --> join_merge
  join_merge --> merge
)txt") + pseudo_style + text(R"txt(
  classDef join fill:#333333,stroke:#333333,color:#ffffff
  class join_merge join
)txt"));
}

// A graph declared as a struct deriving from sg::graph<...> draws as the same graph declared
// with `using` (docs/guide.md, "Large graphs").
struct agent_loop_struct : sg::graph<Chat, sg::edge<sg::start, agent>, sg::branch<agent, route>, sg::edge<tools, agent>> {};

TEST_CASE("a graph declared as a struct draws as the same graph declared with using") {
  CHECK(sg::to_mermaid<agent_loop_struct>() == sg::to_mermaid<agent_loop>());
  CHECK(sg::to_mermaid<agent_loop_struct>().find("agent -.->|route| tools") != std::string::npos);
  CHECK(sg::to_dot<agent_loop_struct>() == sg::to_dot<agent_loop>());
}

TEST_CASE("stages: one cluster per stage, in order of first appearance; any_stage nodes stay outside") {
  CHECK(sg::to_mermaid<two_stages>() == text(R"txt(
flowchart TD
  __start__(["__start__"])
  subgraph stage_think ["think"]
    sketch
    refine
  end
  subgraph stage_act ["act"]
    execute
  end
  audit
  __end__(["__end__"])
  __start__ --> sketch
  sketch --> refine
  refine --> execute
  execute --> audit
  audit --> __end__
)txt") + pseudo_style);
}

TEST_CASE("two stage types of one unqualified name are two subgraphs") {
  CHECK(sg::to_mermaid<namesake_stages>() == text(R"txt(
flowchart TD
  __start__(["__start__"])
  subgraph stage_plan ["plan"]
    sketch
  end
  subgraph stage_plan_2 ["plan"]
    refine
  end
  __end__(["__end__"])
  __start__ --> sketch
  sketch --> refine
  refine --> __end__
)txt") + pseudo_style);
}

TEST_CASE("stages = false: no clusters") {
  CHECK(sg::to_mermaid<two_stages>({.stages = false}) == text(R"txt(
flowchart TD
  __start__(["__start__"])
  sketch
  refine
  execute
  audit
  __end__(["__end__"])
  __start__ --> sketch
  sketch --> refine
  refine --> execute
  execute --> audit
  audit --> __end__
)txt") + pseudo_style);
}

TEST_CASE("commands: goto targets dotted; sends (from a node or a router): thick") {
  CHECK(sg::to_mermaid<commands_and_sends>() == text(R"txt(
flowchart TD
  __start__(["__start__"])
  manager
  mapper
  worker
  piece
  __end__(["__end__"])
  __start__ --> manager
  __start__ --> mapper
  manager -.->|goto| worker
  manager -.->|goto| __end__
  mapper ==>|send| piece
  worker --> manager
  worker ==>|scatter| piece
  piece --> __end__
)txt") + pseudo_style);
}

TEST_CASE("channels = true: every channel, and one link per node and channel it reads or writes") {
  CHECK(sg::to_mermaid<agent_loop>({.channels = true}) == text(R"txt(
flowchart TD
  __start__(["__start__"])
  agent
  tools
  __end__(["__end__"])
  subgraph state_Chat ["Chat"]
    ch_messages[("messages")]
    ch_calls[("calls")]
    ch_topic[("topic")]
  end
  __start__ --> agent
  agent -.->|route| tools
  agent -.->|route| __end__
  tools --> agent
  ch_messages <--> agent
  agent --> ch_calls
  ch_messages <--> tools
)txt") + pseudo_style + text(R"txt(
  classDef channel fill:#fff8e1,stroke:#b08800
  class ch_messages,ch_calls,ch_topic channel
  linkStyle 4,5,6 stroke:#b08800,stroke-width:1px
)txt"));
}

TEST_CASE("channels = true: a subscription is dashed and replaces the plain read") {
  CHECK(sg::to_mermaid<reactive>({.channels = true}) == text(R"txt(
flowchart TD
  __start__(["__start__"])
  ticker
  watcher
  __end__(["__end__"])
  subgraph state_Watch ["Watch"]
    ch_ticks[("ticks")]
    ch_seen[("seen")]
  end
  __start__ --> ticker
  ticker --> watcher
  watcher --> __end__
  ticker --> ch_ticks
  ch_ticks -.-> watcher
  ch_seen <--> watcher
)txt") + pseudo_style + text(R"txt(
  classDef channel fill:#fff8e1,stroke:#b08800
  class ch_ticks,ch_seen channel
  linkStyle 3,4,5 stroke:#b08800,stroke-width:1px
)txt"));
}

TEST_CASE("names that are not identifiers, or clash, get legal and distinct ids") {
  CHECK(sg::to_mermaid<odd_names>({.channels = true}) == text(R"txt(
flowchart TD
  __start__(["__start__"])
  worker_1_["worker#lt;1#gt;"]
  end_["end"]
  say__hi___1["say #quot;hi#quot; #35;1"]
  ch_plan
  __end__(["__end__"])
  subgraph state_Odd ["Odd"]
    ch_plan_2[("plan")]
  end
  __start__ --> worker_1_
  worker_1_ --> end_
  end_ --> say__hi___1
  say__hi___1 --> ch_plan
  ch_plan --> __end__
  ch_plan_2 --> worker_1_
  ch_plan_2 --> end_
  ch_plan_2 --> say__hi___1
  ch_plan_2 --> ch_plan
)txt") + pseudo_style + text(R"txt(
  classDef channel fill:#fff8e1,stroke:#b08800
  class ch_plan_2 channel
  linkStyle 5,6,7,8 stroke:#b08800,stroke-width:1px
)txt"));
}

TEST_CASE("a lambda node without its binding: drawn by its tag's name, no stage, no channels") {
  CHECK(sg::to_mermaid<with_lambda>({.channels = false}) == text(R"txt(
flowchart TD
  __start__(["__start__"])
  split
  summarize_tag
  __end__(["__end__"])
  __start__ --> split
  split --> summarize_tag
  summarize_tag --> __end__
)txt") + pseudo_style);
}

TEST_CASE("a lambda node with its binding: its stage and channels are drawn") {
  CHECK(sg::to_mermaid<with_lambda, summarize_node>({.channels = true}) == text(R"txt(
flowchart TD
  __start__(["__start__"])
  split
  subgraph stage_think ["think"]
    summarize_tag
  end
  __end__(["__end__"])
  subgraph state_Log ["Log"]
    ch_log[("log")]
  end
  __start__ --> split
  split --> summarize_tag
  summarize_tag --> __end__
  split --> ch_log
  ch_log <--> summarize_tag
)txt") + pseudo_style + text(R"txt(
  classDef channel fill:#fff8e1,stroke:#b08800
  class ch_log channel
  linkStyle 3,4 stroke:#b08800,stroke-width:1px
)txt"));
}

TEST_CASE("direction and title") {
  CHECK(sg::to_mermaid<chain>({.direction = sg::picture_direction::left_right, .title = "a \"chain\""}) == text(R"txt(
---
title: "a \"chain\""
---
flowchart LR
  __start__(["__start__"])
  first
  second
  __end__(["__end__"])
  __start__ --> first
  first --> second
  second --> __end__
)txt") + pseudo_style);
}

TEST_CASE("left to right: the join barrier stands upright") {
  CHECK(sg::to_mermaid<fork_join>({.direction = sg::picture_direction::left_right}) == text(R"txt(
flowchart LR
  __start__(["__start__"])
  split
  left
  right
  merge
  __end__(["__end__"])
  join_merge{{"join"}}
  __start__ --> split
  split --> left
  split --> right
  merge --> __end__
  left --> join_merge
  right --> join_merge
  join_merge --> merge
)txt") + pseudo_style + text(R"txt(
  classDef join fill:#333333,stroke:#333333,color:#ffffff
  class join_merge join
)txt"));
}
TEST_SUITE_END();
