// sg::to_dot: the exact text for small graphs, one kind of link per case.
#include "graphs.hpp"

#include <stategraph/pictures.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace pictures_test;

namespace {
// Every picture opens with the same default styles.
std::string opening(std::string_view rankdir) {
  return "digraph stategraph {\n  rankdir=" + std::string(rankdir) +
         ";\n"
         "  fontname=\"Helvetica\";\n"
         "  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eef1fb\", color=\"#51608c\", "
         "fontname=\"Helvetica\"];\n"
         "  edge [color=\"#333333\", fontname=\"Helvetica\", fontsize=10];\n";
}
}  // namespace

TEST_SUITE_BEGIN("to_dot");

TEST_CASE("a static chain: solid edges between __start__, the nodes and __end__") {
  CHECK(sg::to_dot<chain>() == opening("TB") + text(R"txt(
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  "first";
  "second";
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  "__start__" -> "first";
  "first" -> "second";
  "second" -> "__end__";
}
)txt"));
}

TEST_CASE("a branch: one dashed edge per target, labelled with the router") {
  CHECK(sg::to_dot<agent_loop>() == opening("TB") + text(R"txt(
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  "agent";
  "tools";
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  "__start__" -> "agent";
  "agent" -> "tools" [style=dashed, label="route"];
  "agent" -> "__end__" [style=dashed, label="route"];
  "tools" -> "agent";
}
)txt"));
}

TEST_CASE("a join: the sources meet at a barrier before its target") {
  CHECK(sg::to_dot<fork_join>() == opening("TB") + text(R"txt(
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  "split";
  "left";
  "right";
  "merge";
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  "join_merge" [shape=box, style=filled, fillcolor="#333333", label="", width=0.6, height=0.08];
  "__start__" -> "split";
  "split" -> "left";
  "split" -> "right";
  "merge" -> "__end__";
  "left" -> "join_merge" [arrowhead=none];
  "right" -> "join_merge" [arrowhead=none];
  "join_merge" -> "merge" [label="join"];
}
)txt"));
}

TEST_CASE("stages: one cluster per stage, in order of first appearance; any_stage nodes stay outside") {
  CHECK(sg::to_dot<two_stages>() == opening("TB") + text(R"txt(
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  subgraph "cluster_think" {
    label="think";
    labeljust=l;
    style="rounded,dashed";
    color="#8a8a8a";
    "sketch";
    "refine";
  }
  subgraph "cluster_act" {
    label="act";
    labeljust=l;
    style="rounded,dashed";
    color="#8a8a8a";
    "execute";
  }
  "audit";
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  "__start__" -> "sketch";
  "sketch" -> "refine";
  "refine" -> "execute";
  "execute" -> "audit";
  "audit" -> "__end__";
}
)txt"));
}

TEST_CASE("two stage types of one unqualified name are two clusters") {
  CHECK(sg::to_dot<namesake_stages>() == opening("TB") + text(R"txt(
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  subgraph "cluster_plan" {
    label="plan";
    labeljust=l;
    style="rounded,dashed";
    color="#8a8a8a";
    "sketch";
  }
  subgraph "cluster_plan_" {
    label="plan";
    labeljust=l;
    style="rounded,dashed";
    color="#8a8a8a";
    "refine";
  }
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  "__start__" -> "sketch";
  "sketch" -> "refine";
  "refine" -> "__end__";
}
)txt"));
}

TEST_CASE("stages = false: no clusters") {
  CHECK(sg::to_dot<two_stages>({.stages = false}) == opening("TB") + text(R"txt(
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  "sketch";
  "refine";
  "execute";
  "audit";
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  "__start__" -> "sketch";
  "sketch" -> "refine";
  "refine" -> "execute";
  "execute" -> "audit";
  "audit" -> "__end__";
}
)txt"));
}

TEST_CASE("commands: goto targets dotted; sends (from a node or a router): bold") {
  CHECK(sg::to_dot<commands_and_sends>() == opening("TB") + text(R"txt(
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  "manager";
  "mapper";
  "worker";
  "piece";
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  "__start__" -> "manager";
  "__start__" -> "mapper";
  "manager" -> "worker" [style=dotted, label="goto"];
  "manager" -> "__end__" [style=dotted, label="goto"];
  "mapper" -> "piece" [style=bold, arrowhead=normalnormal, label="send"];
  "worker" -> "manager";
  "worker" -> "piece" [style=bold, arrowhead=normalnormal, label="scatter"];
  "piece" -> "__end__";
}
)txt"));
}

TEST_CASE("channels = true: every channel, and one link per node and channel it reads or writes") {
  CHECK(sg::to_dot<agent_loop>({.channels = true}) == opening("TB") + text(R"txt(
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  "agent";
  "tools";
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  subgraph "cluster state" {
    label="Chat";
    labeljust=l;
    style="rounded,filled";
    fillcolor="#fffdf5";
    color="#d9c27a";
    "ch_messages" [shape=cylinder, style=filled, fillcolor="#fff8e1", color="#b08800", label="messages"];
    "ch_calls" [shape=cylinder, style=filled, fillcolor="#fff8e1", color="#b08800", label="calls"];
    "ch_topic" [shape=cylinder, style=filled, fillcolor="#fff8e1", color="#b08800", label="topic"];
  }
  "__start__" -> "agent";
  "agent" -> "tools" [style=dashed, label="route"];
  "agent" -> "__end__" [style=dashed, label="route"];
  "tools" -> "agent";
  "ch_messages" -> "agent" [color="#b08800", dir=both, arrowsize=0.6, constraint=false];
  "agent" -> "ch_calls" [color="#b08800", arrowsize=0.6, constraint=false];
  "ch_messages" -> "tools" [color="#b08800", dir=both, arrowsize=0.6, constraint=false];
}
)txt"));
}

TEST_CASE("channels = true: a subscription is dashed and replaces the plain read") {
  CHECK(sg::to_dot<reactive>({.channels = true}) == opening("TB") + text(R"txt(
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  "ticker";
  "watcher";
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  subgraph "cluster state" {
    label="Watch";
    labeljust=l;
    style="rounded,filled";
    fillcolor="#fffdf5";
    color="#d9c27a";
    "ch_ticks" [shape=cylinder, style=filled, fillcolor="#fff8e1", color="#b08800", label="ticks"];
    "ch_seen" [shape=cylinder, style=filled, fillcolor="#fff8e1", color="#b08800", label="seen"];
  }
  "__start__" -> "ticker";
  "ticker" -> "watcher";
  "watcher" -> "__end__";
  "ticker" -> "ch_ticks" [color="#b08800", arrowsize=0.6, constraint=false];
  "ch_ticks" -> "watcher" [color="#b08800", style=dashed, arrowsize=0.6, constraint=false];
  "ch_seen" -> "watcher" [color="#b08800", dir=both, arrowsize=0.6, constraint=false];
}
)txt"));
}

TEST_CASE("names that are not identifiers, or clash, get legal and distinct ids") {
  CHECK(sg::to_dot<odd_names>({.channels = true}) == opening("TB") + text(R"txt(
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  "worker<1>";
  "end";
  "say \"hi\" #1";
  "ch_plan";
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  subgraph "cluster state" {
    label="Odd";
    labeljust=l;
    style="rounded,filled";
    fillcolor="#fffdf5";
    color="#d9c27a";
    "ch_plan_2" [shape=cylinder, style=filled, fillcolor="#fff8e1", color="#b08800", label="plan"];
  }
  "__start__" -> "worker<1>";
  "worker<1>" -> "end";
  "end" -> "say \"hi\" #1";
  "say \"hi\" #1" -> "ch_plan";
  "ch_plan" -> "__end__";
  "ch_plan_2" -> "worker<1>" [color="#b08800", arrowsize=0.6, constraint=false];
  "ch_plan_2" -> "end" [color="#b08800", arrowsize=0.6, constraint=false];
  "ch_plan_2" -> "say \"hi\" #1" [color="#b08800", arrowsize=0.6, constraint=false];
  "ch_plan_2" -> "ch_plan" [color="#b08800", arrowsize=0.6, constraint=false];
}
)txt"));
}

TEST_CASE("a lambda node without its binding: drawn by its tag's name, no stage, no channels") {
  CHECK(sg::to_dot<with_lambda>({.channels = false}) == opening("TB") + text(R"txt(
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  "split";
  "summarize_tag";
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  "__start__" -> "split";
  "split" -> "summarize_tag";
  "summarize_tag" -> "__end__";
}
)txt"));
}

TEST_CASE("a lambda node with its binding: its stage and channels are drawn") {
  CHECK(sg::to_dot<with_lambda, summarize_node>({.channels = true}) == opening("TB") + text(R"txt(
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  "split";
  subgraph "cluster_think" {
    label="think";
    labeljust=l;
    style="rounded,dashed";
    color="#8a8a8a";
    "summarize_tag";
  }
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  subgraph "cluster state" {
    label="Log";
    labeljust=l;
    style="rounded,filled";
    fillcolor="#fffdf5";
    color="#d9c27a";
    "ch_log" [shape=cylinder, style=filled, fillcolor="#fff8e1", color="#b08800", label="log"];
  }
  "__start__" -> "split";
  "split" -> "summarize_tag";
  "summarize_tag" -> "__end__";
  "split" -> "ch_log" [color="#b08800", arrowsize=0.6, constraint=false];
  "ch_log" -> "summarize_tag" [color="#b08800", dir=both, arrowsize=0.6, constraint=false];
}
)txt"));
}

TEST_CASE("direction and title") {
  CHECK(sg::to_dot<chain>({.direction = sg::picture_direction::left_right, .title = "a \"chain\""}) == text(R"txt(
digraph stategraph {
  rankdir=LR;
  label="a \"chain\"";
  labelloc=t;
  fontname="Helvetica";
  node [shape=box, style="rounded,filled", fillcolor="#eef1fb", color="#51608c", fontname="Helvetica"];
  edge [color="#333333", fontname="Helvetica", fontsize=10];
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  "first";
  "second";
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  "__start__" -> "first";
  "first" -> "second";
  "second" -> "__end__";
}
)txt"));
}

TEST_CASE("left to right: the join barrier stands upright") {
  CHECK(sg::to_dot<fork_join>({.direction = sg::picture_direction::left_right}) == opening("LR") + text(R"txt(
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  "split";
  "left";
  "right";
  "merge";
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  "join_merge" [shape=box, style=filled, fillcolor="#333333", label="", width=0.08, height=0.6];
  "__start__" -> "split";
  "split" -> "left";
  "split" -> "right";
  "merge" -> "__end__";
  "left" -> "join_merge" [arrowhead=none];
  "right" -> "join_merge" [arrowhead=none];
  "join_merge" -> "merge" [label="join"];
}
)txt"));
}
TEST_SUITE_END();
