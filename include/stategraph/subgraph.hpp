// A compiled graph used as one node of a parent graph (issue: subgraphs). Either it shares
// the parent's schema, or sg::maps<&Parent::x, &Child::y> pairs say which parent channel
// feeds and receives which child channel. The node's reads and writes are computed from the
// child's nodes, so the parent's rules (SG002, SG008, ...) see through it. Errors from the
// child name its nodes as "parent/child", and so do the child's updates and debug events
// in the parent's stream.
//
//   using research = sg::subgraph<research_tag, research_graph>;            // shared schema
//   using review = sg::subgraph<review_tag, review_graph,
//                               sg::maps<&Turn::draft, &Review::text>,
//                               sg::maps<&Turn::notes, &Review::comments>>;
//   using track = sg::subgraph<tracker_tag, tracker_graph, sg::flatten<&Canvas::tracker>>;
//
// sg::flatten<&Parent::member> is for a child state held as `sg::composite<Child> member;`
// in the parent (schema.hpp): every channel the child uses maps to the parent's flattened
// channel sg::in<&Parent::member, &Child::channel>, named "member.channel".
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/errors.hpp>
#include <stategraph/events.hpp>
#include <stategraph/node.hpp>
#include <stategraph/run.hpp>
#include <stategraph/schedule.hpp>
#include <stategraph/schema.hpp>

#include <boost/mp11/algorithm.hpp>

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace stategraph {

template <auto ParentChannel, auto ChildChannel>
struct maps {
  static constexpr auto parent = ParentChannel;
  static constexpr auto child = ChildChannel;
};

template <auto Composite>
struct flatten {
  static constexpr auto parent = Composite;
};

namespace detail {

template <class L>
struct to_reads;
template <class... V>
struct to_reads<mp_list<V...>> {
  using type = reads<V::value...>;
};
template <class L>
struct to_writes;
template <class... V>
struct to_writes<mp_list<V...>> {
  using type = writes<V::value...>;
};

// The channels a graph's nodes and routers read, and those its nodes write.
template <class G>
struct graph_channels {
  using A = analysis<G>;
  template <class N>
  using reads_of = typename node_traits<N>::reads_type::list;
  template <class N>
  using writes_of = typename node_traits<N>::writes_type::list;
  template <class Br>
  using router_reads = reads_of<typename A::template branch_parts<Br>::router>;
  using read = boost::mp11::mp_unique<boost::mp11::mp_flatten<boost::mp11::mp_append<
      boost::mp11::mp_transform<reads_of, typename A::nodes>, boost::mp11::mp_transform<router_reads, typename A::branches>>>>;
  using written = boost::mp11::mp_unique<boost::mp11::mp_flatten<boost::mp11::mp_transform<writes_of, typename A::nodes>>>;
};

template <class V>
using same_channel = maps<V::value, V::value>;

template <auto Composite>
struct into_composite {
  template <class V>
  using fn = maps<in<Composite, V::value>, V::value>;
};

// The (parent, child) channel pairs of a subgraph node: the child's channels themselves
// (shared schema), the maps given, or every child channel inside the composite flattened.
template <class ChildState, class ChildChannels, class... Maps>
struct subgraph_pairs {
  using type = mp_list<Maps...>;
};
template <class ChildState, class ChildChannels>
struct subgraph_pairs<ChildState, ChildChannels> {
  using type = boost::mp11::mp_transform<same_channel, ChildChannels>;
};
template <class ChildState, class ChildChannels, auto Composite>
struct subgraph_pairs<ChildState, ChildChannels, flatten<Composite>> {
  static_assert(std::is_same_v<field_of<Composite>, composite<ChildState>>,
                "stategraph: sg::flatten<&Parent::member> needs a member of type sg::composite<Child>, where Child is the "
                "subgraph's state");
  using type = boost::mp11::mp_transform_q<into_composite<Composite>, ChildChannels>;
};

template <class... Maps>
inline constexpr bool flattens = false;
template <auto Composite>
inline constexpr bool flattens<flatten<Composite>> = true;

// What a child's change of a channel becomes as one write to the parent's channel, as its
// reducer says (reducer_traits): the new elements for a reducer that appends, the reducer's
// delta when it has one, and otherwise an assignment of the child's value.
template <auto ParentChannel>
struct delta_of {
  using F = field_of<ParentChannel>;
  using V = typename channel_traits<F>::value_type;
  using op = typename channel_traits<F>::reducer;
  static constexpr bool by_reducer = appends_only<F> || reducer_traits<op>::template has_delta<V>;
  using type = std::conditional_t<by_reducer, V, assign_value<V>>;

  static std::optional<type> between(const V& before, const V& after) {
    if constexpr (appends_only<F>) {
      if (after.size() <= before.size()) return std::nullopt;
      return V(after.begin() + static_cast<std::ptrdiff_t>(before.size()), after.end());
    } else {
      if constexpr (comparable<V>)
        if (after == before) return std::nullopt;
      if constexpr (by_reducer) return op::delta(before, after);
      else return type{after};
    }
  }
};

// What a subgraph node returns: one optional write per parent channel its child writes.
template <class L>
struct delta_patch;
template <class... M>
struct delta_patch<mp_list<M...>> {
  using type = patch<entry<M::parent, typename delta_of<M::parent>::type, true>...>;
};

template <class ChildState, class... Maps>
struct parent_state_of {
  using type = ChildState;
};
template <class ChildState, class First, class... Rest>
struct parent_state_of<ChildState, First, Rest...> {
  using type = state_of<First::parent>;
};

// How a checkpointed run runs a subgraph node's child: checkpointed too, under the node's
// namespace, so that an interrupt inside pauses the whole run (checkpoint/durable.hpp
// implements it; a node's task scope points at it).
template <class ChildApp>
struct durable_child {
  virtual ~durable_child() = default;
  virtual std::string_view node() const noexcept = 0;
  virtual typename ChildApp::state_type run(const ChildApp& app, typename ChildApp::state_type start) const = 0;
};

// A subgraph node's stage is its tag's, when the tag declares one (SG018 asks for a stage in
// a graph with a lattice).
template <class Tag>
struct stage_of_tag {};
template <class Tag>
  requires requires { typename Tag::stage; }
struct stage_of_tag<Tag> {
  using stage = typename Tag::stage;
};

}  // namespace detail

template <class Tag, class Child, class... Maps>
class subgraph : public detail::stage_of_tag<Tag> {
 public:
  using child_state = typename Child::state_type;
  static constexpr bool shared_schema = sizeof...(Maps) == 0;
  using channels = detail::graph_channels<Child>;

 private:
  template <class M>
  using child_side = detail::value_t<M::child>;
  template <class M>
  using parent_side = detail::value_t<M::parent>;
  using pairs = typename detail::subgraph_pairs<
      child_state, boost::mp11::mp_unique<boost::mp11::mp_append<typename channels::read, typename channels::written>>,
      Maps...>::type;
  template <class M>
  using child_writes = boost::mp11::mp_contains<typename channels::written, child_side<M>>;
  using written_pairs = boost::mp11::mp_copy_if<pairs, child_writes>;

 public:
  using parent_state = typename detail::parent_state_of<child_state, Maps...>::type;
  static constexpr std::string_view name = detail::type_name<Tag>();
  using reads = typename detail::to_reads<boost::mp11::mp_transform<parent_side, pairs>>::type;
  using writes = typename detail::to_writes<boost::mp11::mp_transform<parent_side, written_pairs>>::type;
  using child_app = decltype(compile<Child>());
  // Read by SG012, which checks the seams of the child's nodes against the parent's context.
  using child_graph = Child;
  using tag_type = Tag;
  using result_type = typename detail::delta_patch<written_pairs>::type;

  subgraph() : child_(compile<Child>()) {}
  explicit subgraph(child_app app) : child_(std::move(app)) {}

  result_type operator()(view<parent_state, reads> in) const {
    detail::no_context none;
    return call(in, none);
  }
  // The parent's context reaches the child's nodes (their seams, emit, interrupt). Not for
  // the stand-in context of sg::compile's checks: only a run's own context is passed on.
  template <class Ctx>
    requires(!std::is_same_v<std::remove_const_t<Ctx>, detail::any_context>)
  result_type operator()(view<parent_state, reads> in, Ctx& context) const {
    return call(in, context);
  }

  const child_app& child() const noexcept { return child_; }

  // The child's input from the parent's state, and the node's result from the child's final
  // state: a call is the child's run between them (an async checkpointed run awaits it).
  child_state child_input(const parent_state& parent) const {
    child_state start{};
    if constexpr (shared_schema) {
      start = parent;
    } else {
      boost::mp11::mp_for_each<pairs>([&]<class M>(M) {
        channel_traits<field_of<M::child>>::value(detail::member<M::child>(start)) =
            channel_traits<field_of<M::parent>>::value(detail::member<M::parent>(parent));
      });
    }
    return start;
  }
  result_type child_output(const parent_state& parent, const child_state& out) const {
    return [&]<class... M>(detail::mp_list<M...>*) {
      return (patch<>{} | ... | delta<M>(parent, out));
    }(static_cast<written_pairs*>(nullptr));
  }

 private:
  template <class Ctx>
  result_type call(view<parent_state, reads> in, Ctx& context) const {
    const parent_state& parent = detail::view_access::state(in);
    return child_output(parent, run_child(child_input(parent), context));
  }

  template <class M>
  static auto delta(const parent_state& parent, const child_state& out) {
    using d = detail::delta_of<M::parent>;
    const auto& before = channel_traits<field_of<M::parent>>::value(detail::member<M::parent>(parent));
    const auto& after = channel_traits<field_of<M::child>>::value(detail::member<M::child>(out));
    return maybe_write<M::parent>(d::between(before, after));
  }

  // A flattened child's channel by its name in the parent: the composite's channels are
  // the parent's in the child's order, from the parent index of the first pair on.
  static std::string_view in_parent(std::string_view child_channel) {
    if constexpr (boost::mp11::mp_empty<pairs>::value) {
      return child_channel;
    } else {
      using M = boost::mp11::mp_front<pairs>;
      constexpr std::size_t base = channel_index<parent_state, M::parent>() - channel_index<child_state, M::child>();
      constexpr auto child_names = channel_names<child_state>();
      constexpr auto parent_names = channel_names<parent_state>();
      for (std::size_t j = 0; j < child_names.size(); ++j)
        if (child_names[j] == child_channel) return parent_names[base + j];
      return child_channel;
    }
  }

  // A checkpointed run's child gets the run's context from the runner (durable_child).
  template <class Ctx>
  child_state run_child(child_state start, Ctx& context) const {
    try {
      if (const auto* task = detail::current_task; task && task->child) {
        const auto* durable = static_cast<const detail::durable_child<child_app>*>(task->child);
        if (durable->node() == name) return durable->run(child_, std::move(start));
      }
      constexpr bool with_context = !std::is_same_v<Ctx, detail::no_context>;
      using custom = typename detail::custom_of<std::remove_const_t<Ctx>>::type;
      auto* parent_stream = detail::current_child_events;
      constexpr auto forwarded = stream_mode::updates | stream_mode::debug;
      if (!parent_stream || !has_mode(parent_stream->mode, forwarded)) {
        // Not streamed: the child's emits go straight to the parent task's custom buffer.
        if constexpr (with_context) return child_.invoke(std::move(start), context);
        else return child_.invoke(std::move(start));
      }
      // The parent's stream is listening: run the child streamed and hand its updates and
      // debug events up, named "parent/child". Its values are the child's state, which the
      // parent's events cannot carry. Its custom events are the parent node's own emits.
      auto mode = static_cast<stream_mode>(static_cast<unsigned>(parent_stream->mode) & static_cast<unsigned>(forwarded));
      if constexpr (!std::is_void_v<custom>)
        if (has_mode(parent_stream->mode, stream_mode::custom)) mode = mode | stream_mode::custom;
      auto forward = [&](const event_for<child_state, std::remove_const_t<Ctx>>& e) {
        if constexpr (!std::is_void_v<custom>) {
          if (e.mode == stream_mode::custom) {
            if (e.custom) context.emit(*e.custom);
            return;
          }
        }
        auto channels = e.channels;
        if constexpr (detail::flattens<Maps...>)
          for (auto& c : channels) c = in_parent(c);
        parent_stream->events.push_back({e.mode, e.step, detail::intern(std::string(name) + "/" + std::string(e.node)),
                                         std::move(channels), e.phase, e.duration, e.error});
      };
      if constexpr (with_context) return child_.stream(std::move(start), mode, context, forward);
      else return child_.stream(std::move(start), mode, forward);
    } catch (const node_error& e) {  // name the child's node as parent/child
      throw node_error(std::string(name) + "/" + std::string(e.node()), e.step(), e.cause());
    }
  }

  child_app child_;
};

}  // namespace stategraph
