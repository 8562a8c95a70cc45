// Shared pieces of the checkpointed-run tests: one fixture per store (every case that
// does not depend on a store's internals runs on both), a store wrapper that lets a test
// corrupt what a store hands back, and the agent loop most cases run.
#pragma once

#include <stategraph/checkpoint.hpp>
#include <stategraph/stategraph.hpp>
#include <stategraph/store/any.hpp>
#include <stategraph/store/memory.hpp>
#include <stategraph/store/sqlite.hpp>

#include <unistd.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "../common/temp_db.hpp"

namespace sg = stategraph;

namespace durable_test {

// ---- stores ------------------------------------------------------------------------------

// A file no other case (or concurrent run of the suite) uses; removed with its WAL files.
struct temp_db : sg_test::temp_db {  // "sg-durable-..." unless the case names it
  explicit temp_db(std::string_view tag = "durable") : sg_test::temp_db(tag) {}
};

// A fixture's `store` is an sg::any_store over its own store: an app compiled for one case
// then serves both stores, and the suite builds one durable app per graph and executor
// instead of one per store too. tests/stores and the examples use the stores directly.
struct memory_fixture {
  using store_type = sg::any_store;
  static constexpr const char* name = "memory";
  sg::memory_store inner;
  sg::any_store store{inner};
};

struct sqlite_fixture {
  using store_type = sg::any_store;
  static constexpr const char* name = "sqlite";
  temp_db file;
  sg::sqlite_store inner{file.path()};
  sg::any_store store{inner};
};

// The stores a templated case runs on. The sanitizer builds (scripts/ci-sanitize.sh) define
// DURABLE_TEST_SQLITE_ONLY: the durable code is the same for both stores, the memory
// store's own code is plain containers, and a sanitized run of every case takes long.
#ifdef DURABLE_TEST_SQLITE_ONLY
#define DURABLE_FIXTURES durable_test::sqlite_fixture
#else
#define DURABLE_FIXTURES durable_test::memory_fixture, durable_test::sqlite_fixture
#endif

// A store that hands back what the inner store holds after `tamper` has edited it: how a
// test feeds corrupted checkpoints to the load path of any store. Writes go through as
// they are, so "nothing was changed" is still measured on the inner store, unless
// `discard_writes` drops them (the fuzzer keeps its inner store as built that way).
template <class Inner>
class tampering_store {
 public:
  explicit tampering_store(Inner& inner) : inner_(&inner) {}

  std::function<void(sg::stored_checkpoint&)> tamper_checkpoint;
  std::function<void(std::int64_t checkpoint, std::vector<sg::pending_write>&)> tamper_writes;
  bool discard_writes = false;

  std::int64_t put(const sg::checkpoint_put& cp) {
    if (discard_writes) return ++discarded_;
    return inner_->put(cp);
  }
  void put_writes(std::string_view thread, std::int64_t id, std::span<const sg::pending_write_put> writes) {
    if (!discard_writes) inner_->put_writes(thread, id, writes);
  }
  std::optional<sg::stored_checkpoint> get(std::string_view thread) const { return edited(inner_->get(thread)); }
  std::optional<sg::stored_checkpoint> get(std::string_view thread, std::int64_t id) const {
    return edited(inner_->get(thread, id));
  }
  std::vector<sg::checkpoint_info> list(std::string_view thread, sg::list_options options = {}) const {
    return inner_->list(thread, options);
  }
  std::vector<sg::pending_write> pending_writes(std::string_view thread, std::int64_t id) const {
    auto w = inner_->pending_writes(thread, id);
    if (tamper_writes) tamper_writes(id, w);
    return w;
  }
  bool delete_thread(std::string_view thread) { return inner_->delete_thread(thread); }
  std::size_t prune(std::string_view thread, sg::keep_latest rule) { return inner_->prune(thread, rule); }
  std::size_t prune(std::string_view thread, sg::keep_since rule) { return inner_->prune(thread, rule); }
  std::size_t prune_threads(sg::older_than rule) { return inner_->prune_threads(rule); }
  std::vector<std::string> threads() const { return inner_->threads(); }
  sg::store_stats stats() const { return inner_->stats(); }
  // Tampering edits what the store holds behind the app's back, as another writer would: an
  // app's cached thread state is then not trusted.
  std::int64_t file_version() const { return (tamper_checkpoint ? 1 : 0) + (tamper_writes ? 2 : 0); }

 private:
  std::optional<sg::stored_checkpoint> edited(std::optional<sg::stored_checkpoint> c) const {
    if (c && tamper_checkpoint) tamper_checkpoint(*c);
    return c;
  }
  Inner* inner_;
  std::int64_t discarded_ = 1'000'000;  // ids of dropped puts, far from the inner store's
};
static_assert(sg::checkpoint_store<tampering_store<sg::memory_store>>);

// ---- the agent loop ----------------------------------------------------------------------

struct Msg {
  std::string role, content;
  friend bool operator==(const Msg&, const Msg&) = default;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Msg, role, content)

struct Chat {
  sg::append<Msg> messages;
  sg::counter<int> calls;
};

struct tools;
// Asks for a tool until the history holds five messages.
struct agent {
  using reads = sg::reads<&Chat::messages>;
  using writes = sg::writes<&Chat::messages, &Chat::calls>;
  auto operator()(sg::view<Chat, reads> in) const {
    auto n = in.get<&Chat::messages>().size();
    return sg::write<&Chat::messages>(Msg{"ai", n < 5 ? "call tool" : "done"}) | sg::write<&Chat::calls>(1);
  }
};
struct tools {
  using reads = sg::reads<&Chat::messages>;
  using writes = sg::writes<&Chat::messages>;
  auto operator()(sg::view<Chat, reads>) const { return sg::write<&Chat::messages>(Msg{"tool", "42"}); }
};
struct route {
  using reads = sg::reads<&Chat::messages>;
  sg::go<tools, sg::end> operator()(sg::view<Chat, reads> in) const {
    if (in.get<&Chat::messages>().back().content == "call tool") return sg::to<tools>;
    return sg::to<sg::end>;
  }
};
using chat_graph = sg::graph<Chat, sg::edge<sg::start, agent>, sg::branch<agent, route>, sg::edge<tools, agent>>;

inline std::vector<std::string> contents(const std::vector<Msg>& messages) {
  std::vector<std::string> out;
  for (const auto& m : messages) out.push_back(m.role + ":" + m.content);
  return out;
}

using strings = std::vector<std::string>;

// Fixture's store, run on the sequential executor or (Pool) on a thread pool of two.
template <class Fixture, bool Pool>
struct on_executor : Fixture {
  static auto executor() {
    if constexpr (Pool)
      return sg::with_executor(sg::thread_pool{2});
    else
      return sg::with_executor(sg::sequential{});
  }
};
}  // namespace durable_test

// Both stores (DURABLE_FIXTURES above), each on both executors: the types of a
// TEST_CASE_TEMPLATE.
#ifdef DURABLE_TEST_SQLITE_ONLY
#define DURABLE_STORES_AND_EXECUTORS                                                          \
  durable_test::on_executor<durable_test::sqlite_fixture, false>,                             \
      durable_test::on_executor<durable_test::sqlite_fixture, true>
#else
#define DURABLE_STORES_AND_EXECUTORS                                                          \
  durable_test::on_executor<durable_test::memory_fixture, false>,                             \
      durable_test::on_executor<durable_test::memory_fixture, true>,                          \
      durable_test::on_executor<durable_test::sqlite_fixture, false>,                         \
      durable_test::on_executor<durable_test::sqlite_fixture, true>
#endif
