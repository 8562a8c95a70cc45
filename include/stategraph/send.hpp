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

// Which nodes receive sends, and with which payload type: the payload of the first
// send<Target>(…) found among the nodes' and routers' results.
template <class A>
struct send_plan {
  using state_type = typename A::state_type;
  template <class N>
  using node_sends = typename send_traits<typename call_result<N, state_type, any_context>::type>::sends;
  template <class Br>
  using router_sends = typename send_traits<typename A::template branch_parts<Br>::go_type>::sends;
  using all = boost::mp11::mp_flatten<boost::mp11::mp_append<boost::mp11::mp_transform<node_sends, typename A::nodes>,
                                                             boost::mp11::mp_transform<router_sends, typename A::branches>>>;

  template <class Name>
  struct to {
    template <class Send>
    using fn = std::is_same<typename Send::target_type, Name>;
  };
  template <class Name, std::size_t At = boost::mp11::mp_find_if_q<all, to<Name>>::value>
  struct queue_of {
    using type = std::vector<decltype(boost::mp11::mp_at_c<all, At>::payload)>;
  };
  template <class Name>
  struct queue_of<Name, boost::mp11::mp_size<all>::value> {
    using type = no_queue;
  };
  template <class Name>
  using queue_for = typename queue_of<Name>::type;
  using queues = boost::mp11::mp_rename<boost::mp11::mp_transform<queue_for, typename A::names>, std::tuple>;
  static constexpr bool any = boost::mp11::mp_size<all>::value > 0;
};

}  // namespace detail

}  // namespace stategraph
