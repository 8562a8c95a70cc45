// The checkpoint store interface: the records a store keeps, its errors, and the concept
// every store satisfies (sg::memory_store, sg::sqlite_store, a later PostgreSQL store).
//
// A store knows nothing of JSON or of user types: channel values and metadata arrive as
// text the runtime's codec has already written, and go back out as the same text.
#pragma once

#include <stategraph/errors.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stategraph {

// ---- errors ------------------------------------------------------------------------------

// A store could not do what was asked: I/O, a SQLite failure (its message included), a lock
// held too long by another writer.
class store_error : public error {
 public:
  using error::error;
};

// The file is not a stategraph store, or one of another schema version: nothing was changed.
class store_format_error : public store_error {
 public:
  using store_error::store_error;
};

// A put contradicts what the store holds (its parent does not exist in that thread, a
// channel refers to a version its parent lacks, ...): refused whole, nothing written.
class store_refused_error : public store_error {
 public:
  using store_error::store_error;
};

// Another writer moved the thread's head (its newest checkpoint) after this writer read it:
// the put continued `expected`, the head is now `actual`. Nothing of the put was kept; reload
// the thread and try again. Only one writer at a time can continue a thread.
class conflict_error : public error {
 public:
  conflict_error(std::string_view thread, std::int64_t expected, std::int64_t actual)
      : error("stategraph: thread '" + std::string(thread) + "' was continued by another writer: this write " +
              "continued checkpoint " + std::to_string(expected) + " but the thread's head is now checkpoint " +
              std::to_string(actual) + "; nothing was written (reload the thread and retry)"),
        thread_(thread),
        expected_(expected),
        actual_(actual) {}
  const std::string& thread() const noexcept { return thread_; }
  std::int64_t expected() const noexcept { return expected_; }  // the head the writer read
  std::int64_t actual() const noexcept { return actual_; }      // the head the store holds

 private:
  std::string thread_;
  std::int64_t expected_, actual_;
};

// ---- records -----------------------------------------------------------------------------

// Why a checkpoint was taken.
enum class checkpoint_source : std::uint8_t { input, loop, update, fork };

constexpr std::string_view to_string(checkpoint_source s) noexcept {
  switch (s) {
    case checkpoint_source::input:
      return "input";
    case checkpoint_source::loop:
      return "loop";
    case checkpoint_source::update:
      return "update";
    case checkpoint_source::fork:
      return "fork";
  }
  return "?";
}

constexpr std::optional<checkpoint_source> parse_checkpoint_source(std::string_view s) noexcept {
  for (auto c : {checkpoint_source::input, checkpoint_source::loop, checkpoint_source::update, checkpoint_source::fork})
    if (to_string(c) == s) return c;
  return std::nullopt;
}

// Checkpoint ids are assigned by the store: 1, 2, 3, ... within each thread, in the order
// the puts committed, so they sort by age and stay unique when several writers (threads
// or processes) add to one thread. 0 means "none" (the parent of a thread's first).
inline constexpr std::int64_t no_checkpoint = 0;

// One channel of a checkpoint being put. `value` is present only when the channel changed
// in this step (a new version); a channel left without a value keeps its parent's value,
// which is why a step costs what it changed and not the whole state.
struct channel_put {
  std::string_view channel;
  std::int64_t version = 0;
  std::optional<std::string_view> value{};
  // The value holds only what this version adds after the previous version's value (the
  // elements an append channel received in the step): the previous value is not written
  // again, so a growing history costs what is new. Reading returns the pieces in order.
  bool append = false;
};

// What a put says about the thread's head (its newest checkpoint, the one `get(thread)`
// reads). `continue_head`: the parent must be the head (none for a new thread), checked in
// the put's own transaction, else sg::conflict_error; so two writers of one thread cannot
// both append to it. `fork`: the parent may be any checkpoint of the thread (time travel, a
// deliberate new branch). Either way the new checkpoint becomes the head.
enum class put_mode : std::uint8_t { continue_head, fork };

// A checkpoint to be stored. Every field is a view: the store copies what it keeps.
struct checkpoint_put {
  std::string_view thread;
  std::int64_t parent = no_checkpoint;
  std::int64_t step = 0;
  checkpoint_source source = checkpoint_source::loop;
  int format_version = 1;
  std::string_view schema_hash{};
  std::string_view metadata{};              // JSON text owned by the runtime
  std::span<const channel_put> channels{};  // every channel the checkpoint has, in any order
  put_mode mode = put_mode::continue_head;
};

// A write of a node that succeeded in a step that failed: kept so a resume need not run the
// node again. One row per (checkpoint, task, index).
struct pending_write_put {
  std::string_view task;  // node name or task id
  std::int32_t index = 0;
  std::string_view channel;
  std::string_view value;
};

struct pending_write {
  std::string task;
  std::int32_t index = 0;
  std::string channel;
  std::string value;
  friend bool operator==(const pending_write&, const pending_write&) = default;
};

// A channel of a stored checkpoint. Its value is `value` followed by `appends` (the
// pieces put with `append = true` since the last whole value, oldest first); a channel
// never put with `append` has no appends.
struct channel_value {
  std::string channel;
  std::int64_t version = 0;
  std::string value;
  std::vector<std::string> appends{};
  friend bool operator==(const channel_value&, const channel_value&) = default;
};

// A checkpoint without its channel values: what a history listing returns.
struct checkpoint_info {
  std::string thread;
  std::int64_t id = no_checkpoint;
  std::int64_t parent = no_checkpoint;
  std::int64_t step = 0;
  checkpoint_source source = checkpoint_source::loop;
  int format_version = 1;
  std::string schema_hash;
  std::string metadata;
  friend bool operator==(const checkpoint_info&, const checkpoint_info&) = default;
};

// A checkpoint with its channel values resolved, in the order they were put.
struct stored_checkpoint : checkpoint_info {
  std::vector<channel_value> channels;
  friend bool operator==(const stored_checkpoint&, const stored_checkpoint&) = default;
};

// Newest first; `before` pages through a long history, `limit` bounds one page.
struct list_options {
  std::optional<std::int64_t> before{};
  std::size_t limit = std::numeric_limits<std::size_t>::max();
};

// What a store holds, for tests and for sizing: a put that changes nothing writes no value.
struct store_stats {
  std::size_t threads = 0;
  std::size_t checkpoints = 0;
  std::size_t values = 0;       // stored channel values (whole values and append pieces)
  std::size_t value_bytes = 0;  // their total size
  std::size_t pending_writes = 0;
  friend bool operator==(const store_stats&, const store_stats&) = default;
};

// ---- retention ---------------------------------------------------------------------------

using store_clock = std::chrono::system_clock;

// The age a retention rule names: a time point, or a duration back from now.
struct retention_time {
  store_clock::time_point time;
  retention_time(store_clock::time_point t) : time(t) {}  // NOLINT: implicit by design
  template <class Rep, class Period>
  retention_time(std::chrono::duration<Rep, Period> age)  // NOLINT: implicit by design
      : time(store_clock::now() - std::chrono::duration_cast<store_clock::duration>(age)) {}
};

// store.prune(thread, rule): which checkpoints of a thread to keep. The head is always kept,
// and every value a kept checkpoint refers to; the rest of the thread's older checkpoints go.
struct keep_latest {
  std::size_t count = 1;  // the newest `count` checkpoints (0 keeps the head alone)
};
struct keep_since : retention_time {  // the checkpoints put at or after this time
  using retention_time::retention_time;
};
// store.prune_threads(older_than{...}): the threads whose head was put before this time go
// whole, as with delete_thread.
struct older_than : retention_time {
  using retention_time::retention_time;
};

// ---- the interface -----------------------------------------------------------------------

// What the runtime calls. Concrete classes with the same member functions: no virtual calls.
// Unknown threads and ids read as empty; writes that contradict the store throw
// store_refused_error and change nothing. One writer per thread: a put in mode
// continue_head, and put_writes, are accepted only for the thread's head (checked in the
// same transaction as the write) and otherwise throw conflict_error and change nothing.
// prune and prune_threads return how many checkpoints / threads they removed.
template <class S>
concept checkpoint_store = requires(S& s, const S& cs, const checkpoint_put& cp, std::string_view thread,
                                    std::int64_t id, std::span<const pending_write_put> writes, list_options options,
                                    keep_latest last, keep_since since, older_than age) {
  { s.put(cp) } -> std::same_as<std::int64_t>;  // the new checkpoint's id
  { s.put_writes(thread, id, writes) } -> std::same_as<void>;
  { s.prune(thread, last) } -> std::same_as<std::size_t>;
  { s.prune(thread, since) } -> std::same_as<std::size_t>;
  { s.prune_threads(age) } -> std::same_as<std::size_t>;
  { cs.get(thread) } -> std::same_as<std::optional<stored_checkpoint>>;  // the latest
  { cs.get(thread, id) } -> std::same_as<std::optional<stored_checkpoint>>;
  { cs.list(thread, options) } -> std::same_as<std::vector<checkpoint_info>>;
  { cs.pending_writes(thread, id) } -> std::same_as<std::vector<pending_write>>;
  { s.delete_thread(thread) } -> std::same_as<bool>;
  { cs.threads() } -> std::same_as<std::vector<std::string>>;
  { cs.stats() } -> std::same_as<store_stats>;
};

// A store that keeps graph descriptions, so a tool can draw a thread's graph without the
// code that ran it (every store here does; the runtime records one when the store has these).
// put_graph(thread, key, description): keeps `description` once per `key` (a later put of a
// known key keeps the first text) and records that `thread` runs that graph. graph(thread):
// the description of the graph the thread last recorded, or nullopt.
template <class S>
concept graph_recording_store = requires(S& s, const S& cs, std::string_view text) {
  { s.put_graph(text, text, text) } -> std::same_as<void>;
  { cs.graph(text) } -> std::same_as<std::optional<std::string>>;
};

// A value a checkpoint wrote: a whole value, or (`appended`) a piece that extends the value
// the channel had at the checkpoint's parent.
struct written_value {
  std::string channel;
  std::string value;
  bool appended = false;
  friend bool operator==(const written_value&, const written_value&) = default;
};

// A store that can say what each checkpoint wrote (every store here can): written(thread,
// id) returns the values the checkpoint put, so a reader of a long thread reads each value
// once instead of every checkpoint's whole state. Unknown threads and ids read as empty.
template <class S>
concept written_values_store = requires(const S& cs, std::string_view thread, std::int64_t id) {
  { cs.written(thread, id) } -> std::same_as<std::vector<written_value>>;
};

namespace detail {

// Why a write was refused, worded the same by every store.
inline std::string store_refusal(std::string_view thread, std::string_view why) {
  return "stategraph: store refused a write to thread '" + std::string(thread) + "': " + std::string(why) +
         "; nothing was written";
}
inline store_refused_error missing_parent(const checkpoint_put& cp) {
  return store_refused_error(
      store_refusal(cp.thread, "parent checkpoint " + std::to_string(cp.parent) + " does not exist in this thread"));
}
inline store_refused_error missing_checkpoint(std::string_view thread, std::int64_t id) {
  return store_refused_error(store_refusal(
      thread, "pending writes for checkpoint " + std::to_string(id) + ", which does not exist in this thread"));
}
inline store_refused_error bad_name(const checkpoint_put& cp) {
  return store_refused_error(
      store_refusal(cp.thread, cp.thread.empty() ? "the thread id is empty" : "a channel name is empty"));
}
inline store_refused_error listed_twice(const checkpoint_put& cp, std::string_view channel) {
  return store_refused_error(store_refusal(cp.thread, "channel '" + std::string(channel) + "' is listed twice"));
}
// A channel put without a value whose parent does not have it at that version.
inline store_refused_error unresolved_channel(const checkpoint_put& cp, const channel_put& c,
                                              std::optional<std::int64_t> parent_version) {
  const std::string channel = "channel '" + std::string(c.channel) + "'";
  if (cp.parent == no_checkpoint)
    return store_refused_error(store_refusal(cp.thread, channel + " has no value and there is no parent"));
  std::string why = channel + " at version " + std::to_string(c.version) + " has no value, and its parent checkpoint " +
                    std::to_string(cp.parent);
  why += parent_version ? " has it at version " + std::to_string(*parent_version) : " does not have the channel";
  return store_refused_error(store_refusal(cp.thread, why));
}

}  // namespace detail

}  // namespace stategraph
