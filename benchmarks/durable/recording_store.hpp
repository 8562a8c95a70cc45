// A store that passes everything to another store and records what each put hands it:
// how the durable benchmarks learn the bytes the library writes per checkpoint without
// reaching into a store's internals. Only the measuring programs use it; the timed runs
// use the stores themselves.
#pragma once

#include <stategraph/store/store.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bench {

namespace sg = stategraph;

// What one put carried. `value_bytes` is what the store's stats() count (channel values
// and append pieces); metadata and the schema hash are the rest of the payload.
struct put_record {
  std::int64_t id = 0;
  std::size_t values = 0;
  std::size_t value_bytes = 0;
  std::size_t metadata_bytes = 0;
  std::size_t hash_bytes = 0;
  std::size_t payload_bytes() const { return value_bytes + metadata_bytes + hash_bytes; }
  // With keep_texts: the payload itself (metadata, schema hash, then the values in the
  // order put) and, per channel in that order, its text if the put carried one.
  std::string payload;
  std::vector<std::string> channels;
  std::vector<std::optional<std::string>> texts;
  std::vector<bool> appends;
};

template <class Inner>
class recording_store {
 public:
  explicit recording_store(Inner& inner, bool keep_texts = false) : inner_(&inner), keep_texts_(keep_texts) {}

  std::vector<put_record> puts;

  std::int64_t put(const sg::checkpoint_put& cp) {
    put_record r;
    r.metadata_bytes = cp.metadata.size();
    r.hash_bytes = cp.schema_hash.size();
    if (keep_texts_) r.payload.append(cp.metadata).append(cp.schema_hash);
    for (const auto& c : cp.channels) {
      if (c.value) {
        ++r.values;
        r.value_bytes += c.value->size();
      }
      if (keep_texts_) {
        if (c.value) r.payload.append(*c.value);
        r.channels.emplace_back(c.channel);
        r.texts.push_back(c.value ? std::optional<std::string>(std::string(*c.value)) : std::nullopt);
        r.appends.push_back(c.append);
      }
    }
    r.id = inner_->put(cp);
    puts.push_back(std::move(r));
    return puts.back().id;
  }
  void put_writes(std::string_view thread, std::int64_t id, std::span<const sg::pending_write_put> writes) {
    inner_->put_writes(thread, id, writes);
  }
  std::optional<sg::stored_checkpoint> get(std::string_view thread) const { return inner_->get(thread); }
  std::optional<sg::stored_checkpoint> get(std::string_view thread, std::int64_t id) const {
    return inner_->get(thread, id);
  }
  std::vector<sg::checkpoint_info> list(std::string_view thread, sg::list_options options = {}) const {
    return inner_->list(thread, options);
  }
  std::vector<sg::pending_write> pending_writes(std::string_view thread, std::int64_t id) const {
    return inner_->pending_writes(thread, id);
  }
  bool delete_thread(std::string_view thread) { return inner_->delete_thread(thread); }
  std::size_t prune(std::string_view thread, sg::keep_latest rule) { return inner_->prune(thread, rule); }
  std::size_t prune(std::string_view thread, sg::keep_since rule) { return inner_->prune(thread, rule); }
  std::size_t prune_threads(sg::older_than rule) { return inner_->prune_threads(rule); }
  std::vector<std::string> threads() const { return inner_->threads(); }
  sg::store_stats stats() const { return inner_->stats(); }

 private:
  Inner* inner_;
  bool keep_texts_;
};

}  // namespace bench
