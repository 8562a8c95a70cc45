// The app: what sg::compile returns. Runs supersteps (BSP): every active node reads the
// snapshot of the step start, and their patches merge at the barrier in node order.
#pragma once

#include <stategraph/channels.hpp>
#include <stategraph/detail/meta.hpp>
#include <stategraph/errors.hpp>
#include <stategraph/node.hpp>
#include <stategraph/rules.hpp>
#include <stategraph/schedule.hpp>
#include <stategraph/schema.hpp>

#include <boost/mp11/algorithm.hpp>
#include <boost/pfr/core.hpp>

#include <array>
#include <cstddef>
#include <exception>
#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace stategraph {

// LangGraph Python's default since 2026 (LangGraph.js keeps 25). A run that needs exactly
// `recursion_limit` supersteps passes; one more throws recursion_limit_error.
inline constexpr std::size_t default_recursion_limit = 10'000;

struct run_config {
  std::size_t recursion_limit = default_recursion_limit;
};

struct sequential {};  // runs the active nodes of a step one after another, in node order

template <class Executor>
struct executor_option {
  Executor executor;
};
template <class Executor>
constexpr executor_option<Executor> with_executor(Executor e) {
  return {std::move(e)};
}

namespace detail {

template <class T>
struct is_executor_option : std::false_type {};
template <class E>
struct is_executor_option<executor_option<E>> : std::true_type {};

// Folds a patch into the state, entry by entry, through each channel's reducer.
template <class S, class... E>
constexpr void apply_patch(S& state, patch<E...>&& p) {
  std::apply(
      [&](auto&... entries) {
        (
            [&](auto& e) {
              if (e.present()) reduce_into(state.*(std::remove_reference_t<decltype(e)>::channel), e.take());
            }(entries),
            ...);
      },
      p.entries);
}

// The input of a run is applied like an update onto a default-constructed state.
template <class S>
constexpr void apply_input(S& state, S&& input) {
  for_each_index<channel_count<S>>([&]<std::size_t I>() {
    auto& to = boost::pfr::get<I>(state);
    auto& from = boost::pfr::get<I>(input);
    using F = std::remove_reference_t<decltype(to)>;
    using V = typename channel_traits<F>::value_type;
    if constexpr (accepts_write<F, V&&>) reduce_into(to, std::move(channel_traits<F>::value(from)));
    else to = std::move(from);
  });
}

template <class S>
constexpr void clear_ephemeral(S& state) {
  for_each_index<channel_count<S>>([&]<std::size_t I>() {
    using F = field_type_t<S, I>;
    if constexpr (channel_traits<F>::kind == channel_kind::ephemeral)
      channel_traits<F>::value(boost::pfr::get<I>(state)) = typename channel_traits<F>::value_type{};
  });
}

template <class S>
inline constexpr bool has_ephemeral = [] {
  bool any = false;
  for_each_index<channel_count<S>>(
      [&]<std::size_t I>() { any = any || channel_traits<field_type_t<S, I>>::kind == channel_kind::ephemeral; });
  return any;
}();

// A node's result as the runtime keeps it: its update and, for a command, where it goes.
template <class R>
struct step_result {
  using patch_type = typename result_kind<R>::patch_type;
  using go_type = typename result_kind<R>::go_type;
  patch_type update;
  std::conditional_t<std::is_void_v<go_type>, std::nullptr_t, std::optional<go_type>> next{};
};

}  // namespace detail

// A graph that broke a rule: the compiler has already said which. Calls compile quietly so
// the diagnostic stays the only message.
template <class G>
struct invalid_app {
  template <class... Args>
  typename G::state_type invoke(Args&&...) const {
    return {};
  }
};

template <class G, class A, class Executor = sequential>
class app {
 public:
  using graph_type = G;
  using state_type = typename G::state_type;
  using analysis_type = A;
  static constexpr std::size_t node_count = A::size;

  template <class... Args>
  explicit app(Args&&... args) : app(std::tuple<std::decay_t<Args>...>(std::forward<Args>(args)...), 0) {}

  // Runs the graph from a new state: `input` is applied through the reducers onto a
  // default-constructed state, then supersteps run until nothing is active.
  state_type invoke(state_type input, const run_config& config = {}) const {
    detail::no_context none;
    return run(std::move(input), none, config);
  }
  template <class Ctx>
    requires(!std::is_same_v<std::remove_const_t<Ctx>, run_config>)
  state_type invoke(state_type input, Ctx& context, const run_config& config = {}) const {
    static_assert(rules::check_all<G, A, Ctx>(), "stategraph: see the rule above");
    return run(std::move(input), context, config);
  }

  static constexpr std::array<std::string_view, A::size> node_names = [] {
    std::array<std::string_view, A::size> out{};
    detail::for_each_index<A::size>([&]<std::size_t I>() { out[I] = node_traits<typename A::template node<I>>::name; });
    return out;
  }();

 private:
  template <std::size_t I>
  using node_t = typename A::template node<I>;
  template <std::size_t B>
  using router_t = typename A::template branch_parts<typename A::template branch_at<B>>::router;
  using nodes_tuple = boost::mp11::mp_rename<typename A::nodes, std::tuple>;
  template <class Seq>
  struct routers_of;
  template <std::size_t... B>
  struct routers_of<std::index_sequence<B...>> {
    using type = std::tuple<router_t<B>...>;
  };
  using routers_tuple = typename routers_of<std::make_index_sequence<A::branch_count>>::type;

  template <class Bound>
  app(Bound&& bound, int) : nodes_(make_nodes(bound)), routers_(make_routers(bound)) {}

  template <class Bound>
  static nodes_tuple make_nodes(Bound& bound) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      return nodes_tuple{take<node_t<I>>(bound)...};
    }(std::make_index_sequence<A::size>{});
  }
  template <class Bound>
  static routers_tuple make_routers(Bound& bound) {
    return [&]<std::size_t... B>(std::index_sequence<B...>) {
      return routers_tuple{take<router_t<B>>(bound)...};
    }(std::make_index_sequence<A::branch_count>{});
  }
  template <class T, class Bound>
  static T take(Bound& bound) {
    if constexpr (boost::mp11::mp_contains<boost::mp11::mp_rename<std::remove_cvref_t<Bound>, detail::mp_list>, T>::value) {
      return std::get<T>(bound);
    } else {
      static_assert(std::is_default_constructible_v<T>,
                    "stategraph: this node or router has no default constructor; pass an instance to sg::compile");
      return T{};
    }
  }

  template <std::size_t I, class Ctx>
  auto call(const state_type& state, Ctx& context, std::size_t step) const {
    using N = node_t<I>;
    using view_t = detail::node_view_t<N, state_type>;
    const N& n = std::get<I>(nodes_);
    try {
      if constexpr (!std::is_same_v<Ctx, detail::no_context> && std::is_invocable_v<const N&, view_t, Ctx&>) {
        return normalise(n, [&] { return n(view_t(state), context); });
      } else {
        return normalise(n, [&] { return n(view_t(state)); });
      }
    } catch (...) {
      throw node_error(node_names[I], step, std::current_exception());
    }
  }
  template <class N, class F>
  static auto normalise(const N&, F&& f) {
    using R = std::invoke_result_t<F&>;
    using out = detail::step_result<R>;
    if constexpr (std::is_void_v<R>) {
      f();
      return out{};
    } else if constexpr (std::is_void_v<typename out::go_type>) {
      return out{f()};
    } else {
      auto c = f();
      return out{std::move(c.update), std::move(c.next)};
    }
  }

  template <class Ctx, class Seq>
  struct results_of;
  template <class Ctx, std::size_t... I>
  struct results_of<Ctx, std::index_sequence<I...>> {
    using type = std::tuple<std::optional<decltype(std::declval<const app&>().template call<I>(
        std::declval<const state_type&>(), std::declval<Ctx&>(), 0))>...>;
  };
  template <class Ctx>
  using results_tuple = typename results_of<Ctx, std::make_index_sequence<A::size>>::type;

  // Adds the targets of a go<...> (a branch's or a command's) to the next frontier.
  template <class Go>
  static void add_targets(typename A::set& next, const Go& g) {
    static constexpr auto targets = detail::indices_of<typename A::names>(static_cast<typename Go::targets*>(nullptr));
    std::uint64_t mask = g.mask();
    while (mask) {
      auto t = targets[static_cast<std::size_t>(__builtin_ctzll(mask))];
      if (t != detail::none) next.set(t);
      mask &= mask - 1;
    }
  }

  template <class Ctx>
  state_type run(state_type input, Ctx& context, const run_config& config) const {
    state_type state{};
    detail::apply_input(state, std::move(input));
    if constexpr (A::plan.fixed) run_fixed(state, context, config);
    else run_frontier(state, context, config);
    return state;
  }

  [[noreturn]] static void over_limit(const run_config& config, std::size_t step, const typename A::set& active) {
    std::vector<std::string_view> names;
    for (std::size_t i = 0; i < A::size; ++i)
      if (active.test(i)) names.push_back(node_names[i]);
    throw recursion_limit_error(config.recursion_limit, step + 1, std::move(names));
  }

  // A static acyclic graph: the supersteps are fixed at compile time.
  template <class Ctx>
  void run_fixed(state_type& state, Ctx& context, const run_config& config) const {
    [&]<std::size_t... St>(std::index_sequence<St...>) {
      (run_fixed_step<St>(state, context, config), ...);
    }(std::make_index_sequence<A::plan.steps>{});
  }
  template <std::size_t St, class Ctx>
  void run_fixed_step(state_type& state, Ctx& context, const run_config& config) const {
    if (St >= config.recursion_limit) over_limit(config, St, A::plan_steps[St]);
    static constexpr auto members = [] {
      std::array<std::size_t, A::plan_steps[St].count()> out{};
      std::size_t k = 0;
      for (std::size_t i = 0; i < A::size; ++i)
        if (A::plan_steps[St].test(i)) out[k++] = i;
      return out;
    }();
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      auto results = std::make_tuple(call<members[K]>(state, context, St + 1)...);
      if constexpr (detail::has_ephemeral<state_type>) detail::clear_ephemeral(state);
      (detail::apply_patch(state, std::move(std::get<K>(results).update)), ...);
    }(std::make_index_sequence<members.size()>{});
  }

  // Branches, commands or cycles: a frontier decides what runs next.
  template <class Ctx>
  void run_frontier(state_type& state, Ctx& context, const run_config& config) const {
    typename A::set active = A::table.from_start;
    std::array<typename A::set, A::join_count> arrived{};
    for (std::size_t step = 0; active.any(); ++step) {
      if (step >= config.recursion_limit) over_limit(config, step, active);
      results_tuple<Ctx> results;
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if (active.test(I)) std::get<I>(results).emplace(call<I>(state, context, step + 1));
      });
      if constexpr (detail::has_ephemeral<state_type>) detail::clear_ephemeral(state);
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if (active.test(I)) detail::apply_patch(state, std::move(std::get<I>(results)->update));
      });
      typename A::set next = A::static_next(active, arrived);
      detail::for_each_index<A::size>([&]<std::size_t I>() {
        if constexpr (!std::is_same_v<decltype(std::get<I>(results)->next), std::nullptr_t>)
          if (active.test(I) && std::get<I>(results)->next) add_targets(next, *std::get<I>(results)->next);
      });
      detail::for_each_index<A::branch_count>([&]<std::size_t B>() {
        constexpr std::size_t source = A::template branch_source<B>;
        if (active.test(source)) {
          using R = router_t<B>;
          auto chosen = std::get<B>(routers_)(view<state_type, typename node_traits<R>::reads_type>(state));
          add_targets(next, chosen);
        }
      });
      active = next;
    }
  }

  nodes_tuple nodes_;
  routers_tuple routers_;
};

// Validates the graph type (every rule of contract §5), builds its static schedule and
// returns the app. Arguments: node or router instances (the rest are default-constructed),
// lambda nodes made with sg::node<Tag, ...>(f), and options such as sg::with_executor.
template <class G, class... Args>
auto compile(Args&&... args) {
  using bound = detail::mp_list<std::decay_t<Args>...>;
  using A = analysis<G, bound>;
  if constexpr (!rules::check_all<G, A, detail::any_context>()) {
    return invalid_app<G>{};
  } else {
    return app<G, A>(std::forward<Args>(args)...);
  }
}

}  // namespace stategraph
