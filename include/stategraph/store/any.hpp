// sg::any_store: one store type for whichever store the configuration names at run time
// (memory, SQLite, PostgreSQL or your own), so a checkpointed app is compiled once and
// serves them all. Each call is one virtual call to the store it wraps.
#pragma once

#include <stategraph/store/store.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace stategraph {

// The stores any_store can wrap: every store of this library is one. A store that keeps no
// graph descriptions or written values cannot be wrapped: any_store promises both.
template <class S>
concept wrappable_store = checkpoint_store<S> && graph_recording_store<S> && written_values_store<S>;

class any_store {
 public:
  // Refers to `store`, which must outlive every copy of this any_store.
  template <class S>
    requires(!std::same_as<std::remove_cv_t<S>, any_store> && wrappable_store<S>)
  any_store(S& store) : impl_(std::make_shared<model<S>>(&store, nullptr)) {}

  // Owns `store`: the last copy of this any_store destroys it.
  template <class S>
    requires wrappable_store<S>
  explicit any_store(std::unique_ptr<S> store)
      : impl_(store ? std::make_shared<model<S>>(store.get(), std::move(store)) : nullptr) {
    if (!impl_) throw std::invalid_argument("stategraph: any_store was given an empty unique_ptr");
  }

  std::int64_t put(const checkpoint_put& cp) { return impl_->put(cp); }
  void put_writes(std::string_view thread, std::int64_t id, std::span<const pending_write_put> writes) {
    impl_->put_writes(thread, id, writes);
  }
  std::size_t prune(std::string_view thread, keep_latest rule) { return impl_->prune(thread, rule); }
  std::size_t prune(std::string_view thread, keep_since rule) { return impl_->prune(thread, rule); }
  std::size_t prune_threads(older_than rule) { return impl_->prune_threads(rule); }
  std::optional<stored_checkpoint> get(std::string_view thread) const { return impl_->get(thread); }
  std::optional<stored_checkpoint> get(std::string_view thread, std::int64_t id) const {
    return impl_->get(thread, id);
  }
  std::vector<checkpoint_info> list(std::string_view thread, list_options options = {}) const {
    return impl_->list(thread, options);
  }
  std::vector<pending_write> pending_writes(std::string_view thread, std::int64_t id) const {
    return impl_->pending_writes(thread, id);
  }
  bool delete_thread(std::string_view thread) { return impl_->delete_thread(thread); }
  std::vector<std::string> threads() const { return impl_->threads(); }
  store_stats stats() const { return impl_->stats(); }
  void put_graph(std::string_view thread, std::string_view key, std::string_view description) {
    impl_->put_graph(thread, key, description);
  }
  std::optional<std::string> graph(std::string_view thread) const { return impl_->graph(thread); }
  std::vector<written_value> written(std::string_view thread, std::int64_t id) const {
    return impl_->written(thread, id);
  }
  // The wrapped store's file_version where it has one (sqlite_store: another process's
  // commit changes it, so an app does not trust its cached threads), else 0.
  std::int64_t file_version() const { return impl_->file_version(); }

  // The wrapped store, when it is an S; else nullptr.
  template <class S>
  S* target() const noexcept {
    auto* m = dynamic_cast<model<S>*>(impl_.get());
    return m ? m->store : nullptr;
  }

 private:
  struct concept_t {
    virtual ~concept_t() = default;
    virtual std::int64_t put(const checkpoint_put&) = 0;
    virtual void put_writes(std::string_view, std::int64_t, std::span<const pending_write_put>) = 0;
    virtual std::size_t prune(std::string_view, keep_latest) = 0;
    virtual std::size_t prune(std::string_view, keep_since) = 0;
    virtual std::size_t prune_threads(older_than) = 0;
    virtual std::optional<stored_checkpoint> get(std::string_view) const = 0;
    virtual std::optional<stored_checkpoint> get(std::string_view, std::int64_t) const = 0;
    virtual std::vector<checkpoint_info> list(std::string_view, list_options) const = 0;
    virtual std::vector<pending_write> pending_writes(std::string_view, std::int64_t) const = 0;
    virtual bool delete_thread(std::string_view) = 0;
    virtual std::vector<std::string> threads() const = 0;
    virtual store_stats stats() const = 0;
    virtual void put_graph(std::string_view, std::string_view, std::string_view) = 0;
    virtual std::optional<std::string> graph(std::string_view) const = 0;
    virtual std::vector<written_value> written(std::string_view, std::int64_t) const = 0;
    virtual std::int64_t file_version() const = 0;
  };

  template <class S>
  struct model final : concept_t {
    model(S* s, std::unique_ptr<S> owned) : store(s), owned(std::move(owned)) {}
    S* store;
    std::unique_ptr<S> owned;  // null when the any_store only refers
    std::int64_t put(const checkpoint_put& cp) override { return store->put(cp); }
    void put_writes(std::string_view t, std::int64_t id, std::span<const pending_write_put> w) override {
      store->put_writes(t, id, w);
    }
    std::size_t prune(std::string_view t, keep_latest r) override { return store->prune(t, r); }
    std::size_t prune(std::string_view t, keep_since r) override { return store->prune(t, r); }
    std::size_t prune_threads(older_than r) override { return store->prune_threads(r); }
    std::optional<stored_checkpoint> get(std::string_view t) const override { return store->get(t); }
    std::optional<stored_checkpoint> get(std::string_view t, std::int64_t id) const override {
      return store->get(t, id);
    }
    std::vector<checkpoint_info> list(std::string_view t, list_options o) const override { return store->list(t, o); }
    std::vector<pending_write> pending_writes(std::string_view t, std::int64_t id) const override {
      return store->pending_writes(t, id);
    }
    bool delete_thread(std::string_view t) override { return store->delete_thread(t); }
    std::vector<std::string> threads() const override { return store->threads(); }
    store_stats stats() const override { return store->stats(); }
    void put_graph(std::string_view t, std::string_view k, std::string_view d) override { store->put_graph(t, k, d); }
    std::optional<std::string> graph(std::string_view t) const override { return store->graph(t); }
    std::vector<written_value> written(std::string_view t, std::int64_t id) const override {
      return store->written(t, id);
    }
    std::int64_t file_version() const override {
      if constexpr (requires(const S& s) { s.file_version(); })
        return store->file_version();
      else
        return 0;
    }
  };

  std::shared_ptr<concept_t> impl_;
};

static_assert(wrappable_store<any_store>);

}  // namespace stategraph
