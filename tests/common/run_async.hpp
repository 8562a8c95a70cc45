// Runs one async run of a test to its end on an io_context of one thread. Shared by the
// async tests (tests/async, tests/checkpoints/async_*.cpp).
#pragma once

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <exception>
#include <functional>
#include <optional>
#include <utility>

namespace sg_test {

// `run` is an asio::awaitable<T>: returns its value or rethrows what it threw. `on_slow`, when
// given, is a hook a node of the test calls as it starts a slow wait: the run is then
// cancelled (terminal) from inside the io_context, as a caller's cancellation would arrive.
// `signal` is a cancellation the test emits itself (from a stream's callback, say).
template <class Awaitable>
typename Awaitable::value_type run_async(Awaitable run, std::function<void()>* on_slow = nullptr,
                                         boost::asio::cancellation_signal* signal = nullptr) {
  namespace asio = boost::asio;
  using T = typename Awaitable::value_type;
  asio::io_context io;
  asio::cancellation_signal own;
  asio::cancellation_signal& cancel = signal ? *signal : own;
  if (on_slow) *on_slow = [&] { asio::post(io, [&] { cancel.emit(asio::cancellation_type::terminal); }); };
  std::optional<T> out;
  std::exception_ptr failure;
  asio::co_spawn(io, std::move(run), asio::bind_cancellation_slot(cancel.slot(), [&](std::exception_ptr e, T value) {
                   failure = e;
                   if (!e) out = std::move(value);
                 }));
  io.run();
  if (on_slow) *on_slow = nullptr;  // it refers to this io_context
  if (failure) std::rethrow_exception(failure);
  return std::move(*out);
}

}  // namespace sg_test
