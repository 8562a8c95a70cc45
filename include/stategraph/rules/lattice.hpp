// SG006 and SG007, the stage lattice: no hand-over goes from one stage to another in a
// direction the lattice does not allow, and a singleton stage holds at most one node.
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/lattice.hpp>
#include <stategraph/node.hpp>
#include <stategraph/rules/handovers.hpp>
#include <stategraph/schedule.hpp>

#include <boost/mp11/algorithm.hpp>

#include <array>
#include <cstddef>
#include <type_traits>

namespace stategraph::rules {

// The stages of the graph A (an sg::analysis) analyses, and the first offenders.
template <class A>
struct lattice_facts {
  using L = typename A::lattice_type;
  static constexpr std::size_t n = A::size;
  template <class N>
  using stage_of = typename node_traits<N>::stage;
  using stages = stategraph::detail::unique_t<boost::mp11::mp_transform<stage_of, typename A::nodes>>;
  static constexpr std::size_t k = boost::mp11::mp_size<stages>::value;

  static constexpr std::array<std::size_t, n> stage_index = []<class... N>(stategraph::detail::mp_list<N...>*) {
    return std::array<std::size_t, n>{boost::mp11::mp_find<stages, stage_of<N>>::value...};
  }(static_cast<typename A::nodes*>(nullptr));
  static constexpr std::array<std::array<bool, k>, k> allowed = [] {
    std::array<std::array<bool, k>, k> out{};
    stategraph::detail::for_each_index<k>([&]<std::size_t X>() {
      stategraph::detail::for_each_index<k>([&]<std::size_t Y>() {
        out[X][Y] = allows_transition<L, boost::mp11::mp_at_c<stages, X>, boost::mp11::mp_at_c<stages, Y>>();
      });
    });
    return out;
  }();

  struct pair {
    std::size_t from = n, to = n;
  };
  // The first hand-over that crosses the lattice.
  static constexpr pair crossing = [] {
    pair p{};
    if constexpr (!std::is_same_v<L, no_lattice>)
      for (std::size_t i = 0; i < n && p.from == n; ++i)
        handovers<A>::next[i].for_each([&](std::size_t j) {
          if (p.from == n && !allowed[stage_index[i]][stage_index[j]]) p = pair{i, j};
        });
    return p;
  }();

  struct crowded {
    std::size_t stage = k, first = n, second = n;
  };
  // The first singleton stage with two nodes, and those two.
  static constexpr crowded crowded_singleton = [] {
    crowded c{};
    stategraph::detail::for_each_index<k>([&]<std::size_t X>() {
      if (c.stage != k || !is_singleton_stage<L, boost::mp11::mp_at_c<stages, X>>()) return;
      std::size_t first = n;
      for (std::size_t i = 0; i < n; ++i) {
        if (stage_index[i] != X) continue;
        if (first == n) first = i;
        else {
          c = {X, first, i};
          return;
        }
      }
    });
    return c;
  }();
};

// ---- predicates ------------------------------------------------------------------------

// No hand-over of the graph A analyses crosses its lattice.
template <class A>
concept respects_lattice = lattice_facts<A>::crossing.from == A::size;

// Every singleton stage of the lattice holds at most one node of the graph.
template <class A>
concept singleton_stages_hold_one_node = lattice_facts<A>::crowded_singleton.stage == lattice_facts<A>::k;

// ---- diagnostics -----------------------------------------------------------------------

template <class From, class To, class FromStage, class ToStage>
struct SG006_edge_crosses_the_lattice {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG006_edge_crosses_the_lattice>,
                  "SG006: an edge goes from one stage to another in a direction the lattice does not allow");
  };
  static constexpr fail<> raised{};
};

template <class Stage, class FirstNode, class SecondNode>
struct SG007_singleton_stage_holds_more_than_one_node {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG007_singleton_stage_holds_more_than_one_node>,
                  "SG007: a singleton stage holds more than one node");
  };
  static constexpr fail<> raised{};
};

// The diagnostics with the first offenders, named as the graph names them.
template <class A, class F = lattice_facts<A>>
using lattice_crossing_diagnostic =
    SG006_edge_crosses_the_lattice<boost::mp11::mp_at_c<typename A::names, F::crossing.from>,
                                   boost::mp11::mp_at_c<typename A::names, F::crossing.to>,
                                   boost::mp11::mp_at_c<typename F::stages, F::stage_index[F::crossing.from]>,
                                   boost::mp11::mp_at_c<typename F::stages, F::stage_index[F::crossing.to]>>;
template <class A, class F = lattice_facts<A>>
using crowded_stage_diagnostic =
    SG007_singleton_stage_holds_more_than_one_node<boost::mp11::mp_at_c<typename F::stages, F::crowded_singleton.stage>,
                                                   boost::mp11::mp_at_c<typename A::names, F::crowded_singleton.first>,
                                                   boost::mp11::mp_at_c<typename A::names, F::crowded_singleton.second>>;

}  // namespace stategraph::rules
