// sg::memory_store: checkpoints in this process's memory, for tests, short-lived runs and
// the fastest checkpointed loop. Thread-safe; gone when the object is.
#pragma once

#include <stategraph/store/store.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace stategraph {

class memory_store {
 public:
  memory_store() = default;
  memory_store(const memory_store&) = delete;
  memory_store& operator=(const memory_store&) = delete;

  std::int64_t put(const checkpoint_put& cp) {
    if (cp.thread.empty()) throw detail::bad_name(cp);
    std::lock_guard lock(mutex_);
    auto it = threads_.find(cp.thread);
    const bool new_thread = it == threads_.end();
    if (new_thread) {
      if (cp.parent != no_checkpoint) throw detail::missing_parent(cp);
      it = threads_.emplace(std::string(cp.thread), thread_data{}).first;
    }
    thread_data& t = it->second;
    // One writer per thread: a continuing put must extend the head it read.
    if (!new_thread && cp.mode == put_mode::continue_head && cp.parent != t.head()) {
      if (cp.parent != no_checkpoint && !t.has(cp.parent)) throw detail::missing_parent(cp);
      throw conflict_error(cp.thread, cp.parent, t.head());
    }
    const auto before = t.sizes();
    try {
      return t.add(cp);
    } catch (...) {
      // A refused or failed put leaves no trace: not even the names it interned.
      if (new_thread)
        threads_.erase(it);
      else
        t.restore(before);
      throw;
    }
  }

  void put_writes(std::string_view thread, std::int64_t checkpoint, std::span<const pending_write_put> writes) {
    std::lock_guard lock(mutex_);
    thread_data* t = find(thread);
    if (t == nullptr || !t->has(checkpoint)) throw detail::missing_checkpoint(thread, checkpoint);
    if (checkpoint != t->head()) throw conflict_error(thread, checkpoint, t->head());
    auto& rows = t->writes[checkpoint];
    const std::size_t old_size = rows.size();
    try {
      for (const auto& w : writes) {
        // The first write of a (task, index) wins: a retried put_writes changes nothing.
        const bool known = std::any_of(rows.begin(), rows.end(),
                                       [&](const pending_write& r) { return r.index == w.index && r.task == w.task; });
        if (!known) rows.push_back({std::string(w.task), w.index, std::string(w.channel), std::string(w.value)});
      }
    } catch (...) {
      rows.resize(old_size);
      throw;
    }
  }

  std::optional<stored_checkpoint> get(std::string_view thread) const {
    std::lock_guard lock(mutex_);
    const thread_data* t = find(thread);
    if (t == nullptr || t->checkpoints.empty()) return std::nullopt;
    return t->read(thread, t->head());
  }

  std::optional<stored_checkpoint> get(std::string_view thread, std::int64_t id) const {
    std::lock_guard lock(mutex_);
    const thread_data* t = find(thread);
    if (t == nullptr || !t->has(id)) return std::nullopt;
    return t->read(thread, id);
  }

  std::vector<checkpoint_info> list(std::string_view thread, list_options options = {}) const {
    std::lock_guard lock(mutex_);
    std::vector<checkpoint_info> out;
    const thread_data* t = find(thread);
    if (t == nullptr) return out;
    auto id = t->head();
    if (options.before) id = std::min(id, *options.before - 1);
    for (; id >= t->first_id && out.size() < options.limit; --id) out.push_back(t->info(thread, id));
    return out;
  }

  std::vector<pending_write> pending_writes(std::string_view thread, std::int64_t checkpoint) const {
    std::lock_guard lock(mutex_);
    std::vector<pending_write> out;
    const thread_data* t = find(thread);
    if (t == nullptr) return out;
    if (auto w = t->writes.find(checkpoint); w != t->writes.end()) out = w->second;
    std::sort(out.begin(), out.end(), [](const pending_write& a, const pending_write& b) {
      return std::tie(a.task, a.index) < std::tie(b.task, b.index);
    });
    return out;
  }

  bool delete_thread(std::string_view thread) {
    std::lock_guard lock(mutex_);
    forget_graph(thread);
    auto it = threads_.find(thread);
    if (it == threads_.end()) return false;
    threads_.erase(it);
    return true;
  }

  // What checkpoint `id` wrote (written_values_store in store.hpp): its entries whose value
  // is not its parent's.
  std::vector<written_value> written(std::string_view thread, std::int64_t id) const {
    std::lock_guard lock(mutex_);
    std::vector<written_value> out;
    const thread_data* t = find(thread);
    if (t == nullptr || !t->has(id)) return out;
    const checkpoint_row& cp = t->row(id);
    const checkpoint_row* parent = t->has(cp.parent) ? &t->row(cp.parent) : nullptr;
    for (std::size_t i = 0; i < cp.entry_count; ++i) {
      const entry& e = t->entries[cp.first_entry + i];
      const entry* old = parent ? t->find_entry(*parent, e.name, i) : nullptr;
      if (old != nullptr && old->value == e.value) continue;
      const value_row& v = t->values[e.value];
      out.push_back({t->names[e.name], std::string(v.text), v.previous != none});
    }
    return out;
  }

  // Graph descriptions (graph_recording_store in store.hpp).
  void put_graph(std::string_view thread, std::string_view key, std::string_view description) {
    if (thread.empty()) throw store_refused_error(detail::store_refusal(thread, "the thread id is empty"));
    std::lock_guard lock(mutex_);
    auto g = graphs_.find(key);
    if (g == graphs_.end()) g = graphs_.emplace(std::string(key), graph_row{std::string(description), 0}).first;
    auto t = thread_graphs_.find(thread);
    if (t != thread_graphs_.end() && t->second == key) return;
    ++g->second.threads;
    if (t == thread_graphs_.end()) thread_graphs_.emplace(std::string(thread), std::string(key));
    else release_graph(std::exchange(t->second, std::string(key)));
  }
  std::optional<std::string> graph(std::string_view thread) const {
    std::lock_guard lock(mutex_);
    auto t = thread_graphs_.find(thread);
    if (t == thread_graphs_.end()) return std::nullopt;
    auto g = graphs_.find(t->second);
    if (g == graphs_.end()) return std::nullopt;
    return g->second.description;
  }

  // Removes the thread's checkpoints older than the rule keeps, their pending writes, and
  // every value only they refer to (the kept ones' values are copied into fresh storage, so
  // the memory goes back).
  std::size_t prune(std::string_view thread, keep_latest rule) {
    std::lock_guard lock(mutex_);
    thread_data* t = find(thread);
    if (t == nullptr) return 0;
    const auto keep = static_cast<std::int64_t>(std::max<std::size_t>(
        1, std::min<std::size_t>(rule.count, t->checkpoints.size())));
    return t->prune_before(t->head() - keep + 1);
  }
  std::size_t prune(std::string_view thread, keep_since rule) {
    std::lock_guard lock(mutex_);
    thread_data* t = find(thread);
    if (t == nullptr) return 0;
    std::int64_t cut = t->head();
    for (std::int64_t id = t->head(); id >= t->first_id && t->row(id).created >= rule.time; --id) cut = id;
    return t->prune_before(cut);
  }
  std::size_t prune_threads(older_than rule) {
    std::lock_guard lock(mutex_);
    return std::erase_if(threads_, [&](const auto& entry) {
      const bool idle = entry.second.row(entry.second.head()).created < rule.time;
      if (idle) forget_graph(entry.first);
      return idle;
    });
  }

  std::vector<std::string> threads() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    out.reserve(threads_.size());
    for (const auto& entry : threads_) out.push_back(entry.first);
    return out;
  }

  store_stats stats() const {
    std::lock_guard lock(mutex_);
    store_stats s;
    s.threads = threads_.size();
    for (const auto& [name, t] : threads_) {
      s.checkpoints += t.checkpoints.size();
      s.values += t.values.size();
      s.value_bytes += t.value_bytes;
      for (const auto& [id, rows] : t.writes) s.pending_writes += rows.size();
    }
    return s;
  }

 private:
  static constexpr std::size_t none = static_cast<std::size_t>(-1);

  // Append-only storage for a thread's text. Blocks never move, so the views handed out
  // stay valid; a put copies its text in without a heap allocation of its own, except one
  // block per 64 KiB (or per value larger than that).
  class text_pool {
   public:
    std::string_view add(std::string_view text) {
      if (text.empty()) return {};
      if (blocks_.empty() || blocks_.back().size - used_ < text.size()) {
        const std::size_t size = std::max(block_size, text.size());
        blocks_.push_back({std::make_unique_for_overwrite<char[]>(size), size});
        used_ = 0;
      }
      char* at = blocks_.back().data.get() + used_;
      std::copy(text.begin(), text.end(), at);
      used_ += text.size();
      return {at, text.size()};
    }
    struct mark {
      std::size_t blocks, used;
    };
    mark position() const noexcept { return {blocks_.size(), used_}; }
    void restore(mark m) {
      blocks_.resize(m.blocks);
      used_ = m.used;
    }

   private:
    static constexpr std::size_t block_size = 64 * 1024;
    struct block {
      std::unique_ptr<char[]> data;
      std::size_t size;
    };
    std::vector<block> blocks_;
    std::size_t used_ = 0;  // of the last block
  };

  // A stored channel value: a whole value, or a piece appended to `previous`.
  struct value_row {
    std::string_view text;  // in the thread's pool
    std::size_t previous = none;
  };
  // Channel `name` of a checkpoint, at `version`, resolved to `value` (shared by every
  // checkpoint that did not change the channel).
  struct entry {
    std::int64_t version;
    std::size_t value;
    std::uint32_t name;
  };
  // One checkpoint; its channels are entries[first_entry, first_entry + entry_count).
  struct checkpoint_row {
    std::int64_t parent, step;
    checkpoint_source source;
    int format_version;
    std::string_view schema_hash, metadata;  // in the thread's pool
    std::size_t first_entry;
    std::size_t entry_count;
    store_clock::time_point created;
  };

  struct sizes_mark {
    std::size_t names, values, entries, value_bytes;
    text_pool::mark text;
  };

  // Everything of one thread lives in flat vectors and one text pool, so a put copies its
  // text and grows vectors (amortized): no heap allocation per checkpoint or per channel.
  struct thread_data {
    std::vector<std::string> names;  // channel names, interned per thread
    text_pool text;
    std::vector<value_row> values;
    std::vector<entry> entries;
    std::vector<checkpoint_row> checkpoints;  // checkpoint id N is checkpoints[N - first_id]
    std::map<std::int64_t, std::vector<pending_write>> writes;
    std::size_t value_bytes = 0;
    std::int64_t first_id = 1;  // the oldest checkpoint kept (prune raises it)

    bool has(std::int64_t id) const noexcept {
      return id >= first_id && id - first_id < static_cast<std::int64_t>(checkpoints.size());
    }
    std::int64_t head() const noexcept { return first_id + static_cast<std::int64_t>(checkpoints.size()) - 1; }
    const checkpoint_row& row(std::int64_t id) const { return checkpoints[static_cast<std::size_t>(id - first_id)]; }
    sizes_mark sizes() const noexcept {
      return {names.size(), values.size(), entries.size(), value_bytes, text.position()};
    }
    void restore(const sizes_mark& m) {
      text.restore(m.text);
      names.resize(m.names);
      values.resize(m.values);
      entries.resize(m.entries);
      value_bytes = m.value_bytes;
    }

    // The runtime lists channels in the same order every step, so position `hint` is
    // almost always the right one and the lookups stay linear in the channel count.
    std::uint32_t intern(std::string_view name, std::size_t hint) {
      if (hint < names.size() && names[hint] == name) return static_cast<std::uint32_t>(hint);
      for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i] == name) return static_cast<std::uint32_t>(i);
      names.emplace_back(name);
      return static_cast<std::uint32_t>(names.size() - 1);
    }
    const entry* find_entry(const checkpoint_row& cp, std::uint32_t name, std::size_t hint) const {
      const entry* first = entries.data() + cp.first_entry;
      if (hint < cp.entry_count && first[hint].name == name) return first + hint;
      for (std::size_t i = 0; i < cp.entry_count; ++i)
        if (first[i].name == name) return first + i;
      return nullptr;
    }

    std::int64_t add(const checkpoint_put& cp) {
      std::optional<std::size_t> parent;
      if (cp.parent != no_checkpoint) {
        if (!has(cp.parent)) throw detail::missing_parent(cp);
        parent = static_cast<std::size_t>(cp.parent - first_id);
      }
      const std::size_t first = entries.size();
      bool in_order = true;  // every channel at its usual position, hence no name twice
      for (std::size_t i = 0; i < cp.channels.size(); ++i) {
        const channel_put& c = cp.channels[i];
        if (c.channel.empty()) throw detail::bad_name(cp);
        const std::uint32_t name = intern(c.channel, i);
        in_order = in_order && name == i;
        const entry* old = parent ? find_entry(checkpoints[*parent], name, i) : nullptr;
        std::size_t value;
        if (old != nullptr && old->version == c.version) {
          value = old->value;  // unchanged since the parent: share its value, write nothing
        } else if (!c.value) {
          throw detail::unresolved_channel(cp, c, old ? std::optional(old->version) : std::nullopt);
        } else {
          values.push_back({text.add(*c.value), c.append && old != nullptr ? old->value : none});
          value_bytes += c.value->size();
          value = values.size() - 1;
        }
        entries.push_back({c.version, value, name});
      }
      if (!in_order) refuse_duplicates(cp, first);
      // A thread's checkpoints nearly always share one schema hash: keep it once.
      const std::string_view hash = !checkpoints.empty() && checkpoints.back().schema_hash == cp.schema_hash
                                        ? checkpoints.back().schema_hash
                                        : text.add(cp.schema_hash);
      checkpoints.push_back({cp.parent, cp.step, cp.source, cp.format_version, hash, text.add(cp.metadata), first,
                             cp.channels.size(), store_clock::now()});
      return head();
    }

    // Keeps checkpoints [cut, head] and what they refer to, in fresh storage.
    std::size_t prune_before(std::int64_t cut) {
      if (cut <= first_id) return 0;
      thread_data kept;
      kept.names = names;
      kept.first_id = cut;
      std::vector<std::size_t> moved(values.size(), none);
      std::vector<std::size_t> chain;
      auto copy_value = [&](std::size_t v) {
        chain.clear();
        for (auto at = v; at != none && moved[at] == none; at = values[at].previous) chain.push_back(at);
        for (auto k = chain.size(); k-- > 0;) {  // oldest piece first, so its successor can link to it
          const value_row& old = values[chain[k]];
          kept.values.push_back({kept.text.add(old.text), old.previous == none ? none : moved[old.previous]});
          kept.value_bytes += old.text.size();
          moved[chain[k]] = kept.values.size() - 1;
        }
        return moved[v];
      };
      for (std::int64_t id = cut; id <= head(); ++id) {
        checkpoint_row r = row(id);
        const std::size_t first = kept.entries.size();
        for (std::size_t i = 0; i < r.entry_count; ++i) {
          entry e = entries[r.first_entry + i];
          e.value = copy_value(e.value);
          kept.entries.push_back(e);
        }
        r.schema_hash = !kept.checkpoints.empty() && kept.checkpoints.back().schema_hash == r.schema_hash
                            ? kept.checkpoints.back().schema_hash
                            : kept.text.add(r.schema_hash);
        r.metadata = kept.text.add(r.metadata);
        r.first_entry = first;
        kept.checkpoints.push_back(r);
      }
      for (auto& [id, rows] : writes)
        if (id >= cut) kept.writes.emplace(id, std::move(rows));
      const auto removed = static_cast<std::size_t>(cut - first_id);
      *this = std::move(kept);
      return removed;
    }

    void refuse_duplicates(const checkpoint_put& cp, std::size_t first) const {
      for (std::size_t i = first; i < entries.size(); ++i)
        for (std::size_t j = first; j < i; ++j)
          if (entries[j].name == entries[i].name) throw detail::listed_twice(cp, cp.channels[i - first].channel);
    }

    checkpoint_info info(std::string_view thread, std::int64_t id) const {
      const checkpoint_row& r = row(id);
      return {.thread = std::string(thread),
              .id = id,
              .parent = r.parent,
              .step = r.step,
              .source = r.source,
              .format_version = r.format_version,
              .schema_hash = std::string(r.schema_hash),
              .metadata = std::string(r.metadata)};
    }

    stored_checkpoint read(std::string_view thread, std::int64_t id) const {
      stored_checkpoint out{info(thread, id), {}};
      const checkpoint_row& r = row(id);
      out.channels.reserve(r.entry_count);
      for (std::size_t i = 0; i < r.entry_count; ++i) {
        const entry& e = entries[r.first_entry + i];
        channel_value v{names[e.name], e.version, {}, {}};
        std::size_t depth = 0;
        for (auto at = e.value; values[at].previous != none; at = values[at].previous) ++depth;
        v.appends.resize(depth);
        auto at = e.value;
        for (std::size_t k = depth; k > 0; --k, at = values[at].previous)
          v.appends[k - 1] = std::string(values[at].text);
        v.value = values[at].text;
        out.channels.push_back(std::move(v));
      }
      return out;
    }
  };

  thread_data* find(std::string_view thread) {
    auto it = threads_.find(thread);
    return it == threads_.end() ? nullptr : &it->second;
  }
  const thread_data* find(std::string_view thread) const {
    auto it = threads_.find(thread);
    return it == threads_.end() ? nullptr : &it->second;
  }

  mutable std::mutex mutex_;
  std::map<std::string, thread_data, std::less<>> threads_;
  // A description is kept while a thread refers to it: it goes with the last one.
  struct graph_row {
    std::string description;
    std::size_t threads = 0;
  };
  void release_graph(const std::string& key) {
    auto g = graphs_.find(key);
    if (g != graphs_.end() && --g->second.threads == 0) graphs_.erase(g);
  }
  void forget_graph(std::string_view thread) {
    auto t = thread_graphs_.find(thread);
    if (t == thread_graphs_.end()) return;
    release_graph(t->second);
    thread_graphs_.erase(t);
  }
  std::map<std::string, graph_row, std::less<>> graphs_;           // key -> description
  std::map<std::string, std::string, std::less<>> thread_graphs_;  // thread -> key
};

static_assert(checkpoint_store<memory_store>);

}  // namespace stategraph
