// Containers and grants (scenarios §3): a container is a named group of channels, and a
// node is granted read or write access to whole containers. Read grants and write grants
// are separate, so a node that only reads a container is no writer of it (SG008).
//
//   struct nav : sg::container<&State::action_history, &State::active_plan> {};
//   struct planner {
//     using reads = sg::reads_from<nav, sg::reads<&State::goal>>;   // containers and channels
//     using writes = sg::writes_to<spatial>;
//     auto operator()(sg::view<State, reads> in) const;
//   };
//
// The container's own type is its name in messages: SG001 prints the view's
// `reads_from<nav, ...>`, and SG008 names the container of the channel two nodes write.
#pragma once

#include <stategraph/detail/meta.hpp>
#include <stategraph/node.hpp>
#include <stategraph/rules/reads.hpp>
#include <stategraph/schema.hpp>

#include <boost/mp11/algorithm.hpp>

#include <type_traits>

namespace stategraph {

template <auto... Channels>
struct container {
  using channels = detail::mp_list<detail::value_t<Channels>...>;
};

namespace detail {
template <class T>
concept is_container = requires { typename T::channels; };

// The channels one source of a grant names: a container's, or an sg::reads/sg::writes list.
template <class Source>
struct grant_channels {
  using type = typename Source::list;
};
template <is_container C>
struct grant_channels<C> {
  using type = typename C::channels;
};
template <class... Sources>
using granted_t = boost::mp11::mp_unique<boost::mp11::mp_append<mp_list<>, typename grant_channels<Sources>::type...>>;

template <class L>
struct reads_list_of;
template <class... V>
struct reads_list_of<mp_list<V...>> {
  using type = reads<V::value...>;
};
template <class L>
struct writes_list_of;
template <class... V>
struct writes_list_of<mp_list<V...>> {
  using type = writes<V::value...>;
};
template <class T>
using container_only = std::bool_constant<is_container<T>>;
}  // namespace detail

// A read grant: every channel of the containers (and of sg::reads lists) given. It is an
// sg::reads of those channels, and keeps the containers' names.
template <class... Sources>
struct reads_from : detail::reads_list_of<detail::granted_t<Sources...>>::type {
  using containers = boost::mp11::mp_copy_if<detail::mp_list<Sources...>, detail::container_only>;
};
// A write grant: the node may write every channel of the containers given.
template <class... Sources>
struct writes_to : detail::writes_list_of<detail::granted_t<Sources...>>::type {
  using containers = boost::mp11::mp_copy_if<detail::mp_list<Sources...>, detail::container_only>;
};

// The container of a channel among a grant's containers (void when none holds it).
namespace detail {
template <class Containers, class Channel>
struct container_holding {
  template <class C>
  using holds = boost::mp11::mp_contains<typename C::channels, Channel>;
  using found = boost::mp11::mp_copy_if<Containers, holds>;
  using type = boost::mp11::mp_eval_if_c<boost::mp11::mp_empty<found>::value, void, boost::mp11::mp_front, found>;
};
template <class Writes, class Channel>
struct grant_container {
  using type = void;
};
template <class Writes, class Channel>
  requires requires { typename Writes::containers; }
struct grant_container<Writes, Channel> : container_holding<typename Writes::containers, Channel> {};
}  // namespace detail

}  // namespace stategraph
