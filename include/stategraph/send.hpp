// Send: a node or a router returns sg::send<Target>(payload) — one value, or a
// std::vector of them — and Target runs once per send in the next step, with the payload
// as its input: `operator()(sg::view<State, reads>, const Payload&)` (and optionally a
// context). Their patches merge at Target's place in node order, in send order.
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/node.hpp>
#include <stategraph/calls.hpp>

#include <boost/mp11/algorithm.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <vector>

namespace stategraph {

namespace detail {

// Appends the sends a result carries to the per-target queues.
template <class Names, class Queues, class T, class P>
void enqueue(Queues& queues, send_to<T, P>&& s) {
  std::get<index_in<T, Names>>(queues).push_back(std::move(s.payload));
}
template <class Names, class Queues, class T, class P>
void enqueue(Queues& queues, std::vector<send_to<T, P>>&& many) {
  auto& q = std::get<index_in<T, Names>>(queues);
  for (auto& s : many) q.push_back(std::move(s.payload));
}

// What node N of a graph of state S sends, keyed by S and N rather than by the graph: a
// member template of send_plan<A> made each node an instantiation keyed by the whole graph.
template <class S>
struct sends_of_node {
  template <class N>
  using fn = typename send_traits<typename call_result<N, S, any_context>::type>::sends;
};
// The queue a node keeps for the sends it receives, given all the sends of a graph (All):
// a vector of the first send's payload to it, or no_queue.
template <class Name>
struct sent_to {
  template <class Send>
  using fn = std::is_same<typename Send::target_type, Name>;
};
template <class All, class Name, std::size_t At = boost::mp11::mp_find_if_q<All, sent_to<Name>>::value,
          bool Found = (At < boost::mp11::mp_size<All>::value)>
struct queue_in {
  using type = std::vector<decltype(boost::mp11::mp_at_c<All, At>::payload)>;
};
template <class All, class Name, std::size_t At>
struct queue_in<All, Name, At, false> {
  using type = no_queue;
};
template <class All>
struct queue_in_q {
  template <class Name>
  using fn = typename queue_in<All, Name>::type;
};

// Which nodes receive sends, and with which payload type: the payload of the first
// send<Target>(…) found among the nodes' and routers' results.
template <class A>
struct send_plan {
  using state_type = typename A::state_type;
  template <class Br>
  using router_sends = typename send_traits<typename A::template branch_parts<Br>::go_type>::sends;
  using all = boost::mp11::mp_flatten<
      boost::mp11::mp_append<boost::mp11::mp_transform_q<sends_of_node<state_type>, typename A::nodes>,
                             boost::mp11::mp_transform<router_sends, typename A::branches>>>;
  template <class Name>
  using queue_for = typename queue_in<all, Name>::type;
  enum : bool { any = boost::mp11::mp_size<all>::value > 0 };  // (see analysis::size)
};
// Every node's queue, in node order (a tuple). Not a member of send_plan, so that a graph
// without sends never forms it: that is one lookup per node, each keyed by the graph.
template <class A>
struct send_queues {
  using type =
      boost::mp11::mp_rename<boost::mp11::mp_transform_q<queue_in_q<typename send_plan<A>::all>, typename A::names>,
                             std::tuple>;
};

}  // namespace detail

}  // namespace stategraph
