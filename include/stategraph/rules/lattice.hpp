// SG006, SG007 and SG018, the stage lattice: no hand-over (an edge, or a subscription that
// lets a writer wake a reactive node) goes from one stage to another in a direction the
// lattice does not allow, a singleton stage holds at most one node, and in a graph with a
// lattice every node names its stage (sg::any_stage when it belongs to none).
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/lattice.hpp>
#include <stategraph/node.hpp>
#include <stategraph/rules/handovers.hpp>
#include <stategraph/schedule.hpp>
#include <stategraph/schema.hpp>

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
  // The first declared hand-over that crosses the lattice.
  static constexpr pair crossing = [] {
    pair p{};
    if constexpr (!std::is_same_v<L, no_lattice>)
      for (std::size_t i = 0; i < n && p.from == n; ++i)
        handovers<A>::declared[i].for_each([&](std::size_t j) {
          if (p.from == n && !allowed[stage_index[i]][stage_index[j]]) p = pair{i, j};
        });
    return p;
  }();

  static constexpr std::array<std::array<bool, k>, k> wake_allowed = [] {
    std::array<std::array<bool, k>, k> out{};
    stategraph::detail::for_each_index<k>([&]<std::size_t X>() {
      stategraph::detail::for_each_index<k>([&]<std::size_t Y>() {
        out[X][Y] = allows_wake<L, boost::mp11::mp_at_c<stages, X>, boost::mp11::mp_at_c<stages, Y>>();
      });
    });
    return out;
  }();
  struct wake {
    std::size_t writer = n, channel = 0, subscriber = n;
  };
  // The first subscription that crosses the lattice: a writer of a channel, in one stage,
  // wakes a subscriber of the channel in a stage the lattice does not let it wake.
  static constexpr wake wake_crossing = [] {
    wake w{};
    if constexpr (!std::is_same_v<L, no_lattice> && A::reactive)
      for (std::size_t i = 0; i < n && w.writer == n; ++i)
        for (std::size_t c = 0; c < A::channels && w.writer == n; ++c) {
          if (!A::reactivity.writes[i].test(c)) continue;
          A::reactivity.subscribers[c].for_each([&](std::size_t j) {
            if (w.writer == n && !wake_allowed[stage_index[i]][stage_index[j]]) w = wake{i, c, j};
          });
        }
    return w;
  }();

  // The first node that names no stage in a graph with a lattice.
  static constexpr std::size_t unstaged = []<class... N>(stategraph::detail::mp_list<N...>*) {
    if constexpr (std::is_same_v<L, no_lattice>) return n;
    else {
      constexpr std::array<bool, sizeof...(N) + 1> declared{node_traits<N>::declares_stage..., true};
      std::size_t i = 0;
      while (i < n && declared[i]) ++i;
      return i;
    }
  }(static_cast<typename A::nodes*>(nullptr));

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

// A graph without a lattice meets the rules below without its facts being computed (each
// fact of lattice_facts<A> is one more symbol that spells the whole graph for the compiler).
template <class A>
concept without_lattice = std::is_same_v<typename A::lattice_type, no_lattice>;

// No hand-over of the graph A analyses crosses its lattice.
template <class A>
concept respects_lattice = without_lattice<A> || lattice_facts<A>::crossing.from == A::size;

// No subscription lets a writer wake a subscriber across the lattice.
template <class A>
concept subscriptions_respect_lattice = without_lattice<A> || lattice_facts<A>::wake_crossing.writer == A::size;

// With a lattice, every node declares its stage (sg::any_stage counts).
template <class A>
concept nodes_declare_stages = without_lattice<A> || lattice_facts<A>::unstaged == A::size;

// Every singleton stage of the lattice holds at most one node of the graph.
template <class A>
concept singleton_stages_hold_one_node =
    without_lattice<A> || lattice_facts<A>::crowded_singleton.stage == lattice_facts<A>::k;

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

// Read as "Subscriber subscribes to Channel, written by Writer in WriterStage".
template <class Subscriber, auto Channel, class Writer, class WriterStage, class SubscriberStage>
struct SG006_subscription_crosses_the_lattice {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG006_subscription_crosses_the_lattice>,
                  "SG006: a reactive node subscribes to a channel written in a stage the lattice does not let "
                  "hand over to the subscriber's stage; allow it with sg::wakes<WriterStage, SubscriberStage> "
                  "(or an sg::transition)");
  };
  static constexpr fail<> raised{};
};

template <class Node>
struct SG018_node_without_a_stage_in_a_staged_graph {
  template <int = 0>
  struct fail {
    static_assert(stategraph::detail::always_false<SG018_node_without_a_stage_in_a_staged_graph>,
                  "SG018: the graph has a lattice and this node declares no stage; give it `using stage = ...;` "
                  "(or say `using stage = sg::any_stage;` for a node outside the lattice)");
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

namespace stategraph::rules {

// Where the wake's channel sits in the writer's `writes`: the message names the channel as
// the writer declared it. Instantiated only for a graph with such a crossing.
template <class A, class F = lattice_facts<A>>
struct wake_channel {
  using writes = typename node_traits<typename A::template node<F::wake_crossing.writer>>::writes_type::list;
  using S = typename A::state_type;
  static constexpr std::size_t position = [] {
    std::size_t at = 0, i = 0;
    boost::mp11::mp_for_each<writes>([&]<class V>(V) {
      if constexpr (std::is_same_v<state_of<V::value>, S>)
        if (channel_index<S, V::value>() == F::wake_crossing.channel) at = i;
      ++i;
    });
    return at;
  }();
};

template <class A, class F = lattice_facts<A>, class C = wake_channel<A>>
using wake_crossing_diagnostic =
    SG006_subscription_crosses_the_lattice<boost::mp11::mp_at_c<typename A::names, F::wake_crossing.subscriber>,
                                           boost::mp11::mp_at_c<typename C::writes, C::position>::value,
                                           boost::mp11::mp_at_c<typename A::names, F::wake_crossing.writer>,
                                           boost::mp11::mp_at_c<typename F::stages, F::stage_index[F::wake_crossing.writer]>,
                                           boost::mp11::mp_at_c<typename F::stages, F::stage_index[F::wake_crossing.subscriber]>>;
template <class A, class F = lattice_facts<A>>
using unstaged_node_diagnostic =
    SG018_node_without_a_stage_in_a_staged_graph<boost::mp11::mp_at_c<typename A::names, F::unstaged>>;

}  // namespace stategraph::rules
