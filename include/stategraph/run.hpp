// The app: what sg::compile returns, and sg::compile itself. The parts: run_options.hpp
// (run_config and compile's options), app.hpp (the app), engine/ (a node's call, the
// barrier and the next frontier, the fixed plan, streamed runs; docs/architecture.md).
#pragma once

#include <stategraph/app.hpp>
#include <stategraph/engine/stream.hpp>
#include <stategraph/run_options.hpp>

#include <boost/mp11/algorithm.hpp>

#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

namespace stategraph {

template <class G, class A, class Executor>
template <class Ctx, class Callback>
auto app<G, A, Executor>::stream_with(state_type input, stream_mode mode, Ctx& context, Callback& callback,
                                      const run_config& config) const -> state_type {
  state_type state{};
  position_type at = begin_run(state, std::move(input));
  using event_t = event_for<state_type, Ctx>;
  auto sink = [&](event_t&& e) { callback(static_cast<const event_t&>(e)); };
  detail::streamer<state_type, A::size, decltype(sink), typename detail::custom_of<Ctx>::type> s{mode, node_names, sink};
  s.values(0, state);
  while (run_step(state, at, context, config, s)) {
  }
  return state;
}

template <class G, class A, class Executor>
auto app<G, A, Executor>::stream(state_type input, stream_mode mode, const run_config& config) const {
  using session = detail::stream_session<app, detail::no_context>;
  auto s = std::make_shared<session>(session{*this, {}, config, mode});
  s->at = begin_run(s->state, std::move(input));
  if (has_mode(mode, stream_mode::values)) {
    event<state_type> e{.mode = stream_mode::values, .step = 0};
    e.values = s->state;
    s->pending.push_back(std::move(e));
  }
  return detail::stream_range<session>(std::move(s));
}

// Validates the graph type (every rule of contract §5), builds its static schedule and
// returns the app. Arguments: node or router instances (the rest are default-constructed),
// lambda nodes made with sg::node<Tag, ...>(f), and options such as sg::with_executor.
template <class G, class... Args>
auto compile(Args&&... args) {
  using bound = detail::mp_list<std::decay_t<Args>...>;
  using A = analysis<G, bound>;
  using stores = boost::mp11::mp_copy_if<bound, detail::is_store_option>;
  if constexpr (!rules::check_all<G, A, detail::any_context>()) {
    return invalid_app<G>{};
  } else if constexpr (boost::mp11::mp_empty<stores>::value) {
    return app<G, A, typename detail::executor_among<std::decay_t<Args>...>::type>(std::forward<Args>(args)...);
  } else {
    using plain_app = app<G, A, typename detail::executor_among<std::decay_t<Args>...>::type>;
    using store_t = std::remove_pointer_t<decltype(boost::mp11::mp_front<stores>::store)>;
    using before = boost::mp11::mp_flatten<
        boost::mp11::mp_transform<detail::list_of, boost::mp11::mp_copy_if<bound, detail::is_before>>>;
    using after = boost::mp11::mp_flatten<
        boost::mp11::mp_transform<detail::list_of, boost::mp11::mp_copy_if<bound, detail::is_after>>>;
    static_assert(detail::is_complete<app_with_store<plain_app, store_t, before, after>>,
                  "stategraph: a graph with a store needs #include <stategraph/checkpoint.hpp>");
    using durable = typename app_with_store<plain_app, store_t, before, after>::type;
    if constexpr (!durable::codecs_ok) {  // SG013 has printed its diagnostic
      return invalid_app<G>{};
    } else {
      auto all = std::forward_as_tuple(std::forward<Args>(args)...);
      const auto& option = std::get<boost::mp11::mp_find_if<bound, detail::is_store_option>::value>(all);
      store_t* store = option.store;
      const checkpoint_options options = option.options;
      return durable(std::apply([](auto&&... a) { return plain_app(std::forward<decltype(a)>(a)...); }, std::move(all)),
                     *store, options);
    }
  }
}

}  // namespace stategraph