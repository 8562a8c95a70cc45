// picture_options::containers: each container a grant names is a cluster of its channels,
// and each grant a state edge (read: container → node, write: node → container). Off by
// default.
#include "graphs.hpp"

#include <stategraph/pictures.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace pictures_test;

TEST_SUITE_BEGIN("containers");

TEST_CASE("containers are off by default: no clusters of channels, no state edges") {
  const std::string dot = sg::to_dot<canvas>(), mermaid = sg::to_mermaid<canvas>();
  CHECK(dot.find("container") == std::string::npos);
  CHECK(dot.find("compound") == std::string::npos);
  CHECK(mermaid.find("container") == std::string::npos);
  CHECK(mermaid.find("ch_") == std::string::npos);
}

TEST_CASE("DOT: a cluster per container inside the state's, grants end at the cluster's border") {
  CHECK(sg::to_dot<canvas>({.containers = true}) == text(R"txt(
digraph stategraph {
  rankdir=TB;
  compound=true;
  fontname="Helvetica";
  node [shape=box, style="rounded,filled", fillcolor="#eef1fb", color="#51608c", fontname="Helvetica"];
  edge [color="#333333", fontname="Helvetica", fontsize=10];
  "__start__" [shape=oval, fillcolor="#ffffff", fontsize=10, height=0.3];
  "planner";
  "scout";
  "mover";
  "__end__" [shape=oval, fillcolor="#d6d0f8", fontsize=10, height=0.3];
  "join_mover" [shape=box, style=filled, fillcolor="#333333", label="", width=0.6, height=0.08];
  subgraph "cluster state" {
    label="Canvas";
    labeljust=l;
    style="rounded,filled";
    fillcolor="#fffdf5";
    color="#d9c27a";
    subgraph "cluster container nav" {
      label="nav";
      labeljust=l;
      style="rounded,filled";
      fillcolor="#fff3c4";
      color="#b08800";
      "ch_history" [shape=cylinder, style=filled, fillcolor="#fff8e1", color="#b08800", label="history"];
      "ch_plan" [shape=cylinder, style=filled, fillcolor="#fff8e1", color="#b08800", label="plan"];
    }
    subgraph "cluster container spatial" {
      label="spatial";
      labeljust=l;
      style="rounded,filled";
      fillcolor="#fff3c4";
      color="#b08800";
      "ch_position" [shape=cylinder, style=filled, fillcolor="#fff8e1", color="#b08800", label="position"];
    }
  }
  "__start__" -> "planner";
  "__start__" -> "scout";
  "mover" -> "__end__";
  "planner" -> "join_mover" [arrowhead=none];
  "scout" -> "join_mover" [arrowhead=none];
  "join_mover" -> "mover" [label="join"];
  "planner" -> "ch_history" [color="#b08800", penwidth=2, constraint=false, lhead="cluster container nav"];
  "ch_history" -> "scout" [color="#b08800", penwidth=2, constraint=false, ltail="cluster container nav"];
  "scout" -> "ch_position" [color="#b08800", penwidth=2, constraint=false, lhead="cluster container spatial"];
  "ch_history" -> "mover" [color="#b08800", penwidth=2, constraint=false, dir=both, ltail="cluster container nav"];
  "ch_position" -> "mover" [color="#b08800", penwidth=2, constraint=false, ltail="cluster container spatial"];
}
)txt"));
}

TEST_CASE("Mermaid: a subgraph per container, grants link the subgraph itself") {
  CHECK(sg::to_mermaid<canvas>({.containers = true}) == text(R"txt(
flowchart TD
  __start__(["__start__"])
  planner
  scout
  mover
  __end__(["__end__"])
  join_mover{{"join"}}
  subgraph state_Canvas ["Canvas"]
    subgraph container_nav ["nav"]
      ch_history[("history")]
      ch_plan[("plan")]
    end
    subgraph container_spatial ["spatial"]
      ch_position[("position")]
    end
  end
  __start__ --> planner
  __start__ --> scout
  mover --> __end__
  planner --> join_mover
  scout --> join_mover
  join_mover --> mover
  planner --> container_nav
  container_nav --> scout
  scout --> container_spatial
  container_nav <--> mover
  container_spatial --> mover
  classDef pseudo fill:#ffffff,stroke:#51608c
  class __start__,__end__ pseudo
  classDef join fill:#333333,stroke:#333333,color:#ffffff
  class join_mover join
  classDef channel fill:#fff8e1,stroke:#b08800
  class ch_history,ch_plan,ch_position channel
  linkStyle 6,7,8,9,10 stroke:#b08800,stroke-width:2px
)txt"));
}

TEST_CASE("with channels too: a container's channels move into its cluster, the others stay loose") {
  const std::string mermaid = sg::to_mermaid<canvas>({.channels = true, .containers = true});
  CHECK(mermaid.find("  subgraph state_Canvas [\"Canvas\"]\n    ch_ticks[(\"ticks\")]\n    subgraph container_nav") !=
        std::string::npos);
  // One vertex per channel: `history` is drawn once, inside nav.
  CHECK(mermaid.find("ch_history_2") == std::string::npos);
  // The per-channel links and the grants, each styled apart.
  CHECK(mermaid.find("  mover --> ch_ticks\n") != std::string::npos);
  CHECK(mermaid.find("  container_nav <--> mover\n") != std::string::npos);
  CHECK(mermaid.find("  linkStyle 6,7,8,9,10,11,12,13,14 stroke:#b08800,stroke-width:1px\n"
                     "  linkStyle 15,16,17,18,19 stroke:#b08800,stroke-width:2px\n") != std::string::npos);
  const std::string dot = sg::to_dot<canvas>({.channels = true, .containers = true});
  CHECK(dot.find("  \"mover\" -> \"ch_ticks\" [color=\"#b08800\", arrowsize=0.6, constraint=false];\n") !=
        std::string::npos);
}

struct twice : sg::container<&Canvas::plan, &Canvas::position> {};
struct reads_twice {
  using reads = sg::reads_from<nav, twice>;
  auto operator()(sg::view<Canvas, reads>) const {}
};
using overlapping = sg::graph<Canvas, sg::edge<sg::start, reads_twice>, sg::edge<reads_twice, sg::end>>;

TEST_CASE("a channel in two containers is drawn in each (a vertex sits in one cluster)") {
  const std::string mermaid = sg::to_mermaid<overlapping>({.containers = true});
  CHECK(mermaid.find("    subgraph container_nav [\"nav\"]\n      ch_history[(\"history\")]\n      ch_plan[(\"plan\")]\n"
                     "    end\n    subgraph container_twice [\"twice\"]\n      ch_plan_2[(\"plan\")]\n"
                     "      ch_position[(\"position\")]\n    end\n") != std::string::npos);
  CHECK(mermaid.find("  container_nav --> reads_twice\n  container_twice --> reads_twice\n") != std::string::npos);
}

TEST_SUITE_END();
