// What a checkpointed run hands its store at every checkpoint, written into buffers the
// run keeps and reuses, and the position metadata read back. The position (step, next
// nodes, join arrivals, queued sends, highest version) has a fixed shape, so it is written
// as text directly rather than through a JSON document; it is read with nlohmann.
#pragma once

#include <stategraph/checkpoint/json.hpp>
#include <stategraph/send.hpp>
#include <stategraph/store/store.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace stategraph::detail {

// An append channel's stored value as a reader meets it: the last whole value and the
// pieces put after it. A reader parses all of them, so the last checkpoint of a run (what
// the next run loads) is whole again once the pieces outweigh the whole value, or once they
// number `snapshot_every` and weigh a `weight_divisor`-th of it. The second rule bounds what
// whole values cost: each is paid for by pieces worth a fixed share of it, so the bytes
// written per turn stay flat however long the thread, and a load reads at most a bounded
// multiple of the state. Inside a run pieces go on: whole values there would cost every
// long run time and bytes, for loads that only a crash or time travel makes.
struct append_chain {
  static constexpr std::size_t weight_divisor = 8;
  std::size_t pieces = 0, piece_bytes = 0, whole_bytes = 0;
  bool takes(std::size_t piece, std::size_t snapshot_every) const {
    if (snapshot_every == 0) return true;  // never whole again: every load joins every piece
    const std::size_t after = piece_bytes + piece;
    if (after > whole_bytes) return false;
    return pieces < snapshot_every || after * weight_divisor <= whole_bytes;
  }
};

template <class App>
class checkpoint_writer {
  using S = typename App::state_type;
  using A = typename App::analysis_type;
  using position_type = typename App::position_type;
  static constexpr std::size_t channels = channel_count<S>;

 public:
  std::array<channel_put, channels> rows{};  // views of the buffers below
  std::string metadata;
  // Names the run that wrote the checkpoint (a tag from new_run_tag: hex digits, nothing to
  // escape), so an app's cached head is told apart from a checkpoint another writer made
  // with the same id and position.
  void tag_run(std::string_view tag) {
    run_field_ = ",\"run\":\"";
    run_field_ += tag;
    run_field_ += '"';
  }

  // Extends `all`, the text of a whole array, by the elements of `piece`, an array's text.
  static void splice_piece(std::string& all, std::string_view piece) {
    if (piece.size() <= 2) return;  // "[]"
    all.pop_back();
    if (all.size() > 1) all += ',';
    all.append(piece.data() + 1, piece.size() - 1);
  }

  // Lists every channel at its version; the ones in `changed` (all when `whole`) get
  // `version` and their value, an append channel that grew only its new elements (from
  // `sizes_before` on), unless the checkpoint ends a run (`last`) and the channel's chain is
  // long enough to start again from a whole value. `joined` holds, for an append channel
  // this run has written whole, the text of its value at the last checkpoint (empty where
  // unknown), so a whole value at the run's end is that text and the new piece, not a new
  // serialization of every element.
  void encode_channels(const S& state, const node_set<channels>& changed, bool whole,
                       std::array<std::int64_t, channels>& versions,
                       const std::array<std::size_t, channels>& sizes_before, std::int64_t version,
                       std::array<append_chain, channels>& chains, std::size_t snapshot_every, bool last,
                       std::array<std::string, channels>& joined) {
    for_each_index<channels>([&]<std::size_t I>() {
      channel_put& row = rows[I];
      row.channel = channel_name_at<S, I>();
      row.value.reset();
      row.append = false;
      if (!(whole || changed.test(I))) {
        row.version = versions[I];
        return;
      }
      versions[I] = version;
      row.version = version;
      std::string& text = texts_[I];
      text.clear();
      using F = field_type_t<S, I>;
      const auto& v = channel_traits<F>::value(detail::field<I>(state));
      if constexpr (appends_only<F>) {
        append_chain& chain = chains[I];
        std::string& all = joined[I];
        const bool grew = !whole && v.size() >= sizes_before[I];
        if (grew) write_json_tail(text, v, sizes_before[I]);
        if (grew && (!last || chain.takes(text.size(), snapshot_every))) {
          row.append = true;
          ++chain.pieces;
          chain.piece_bytes += text.size();
          if (!all.empty()) splice_piece(all, text);
        } else {
          if (grew && !all.empty()) {  // the whole text without writing each element again
            splice_piece(all, text);
            text = all;
          } else {
            text.clear();
            write_json(text, v);
            all = text;
          }
          chain = {0, 0, text.size()};
        }
      } else {
        write_json(text, v);
      }
      row.value = text;
    });
  }

  // The metadata object, keys in the order nlohmann writes them (sorted). The schema list
  // goes only into a thread's first checkpoint: it is read only to name the channels that
  // differ when another build's schema hash does not match.
  void encode_position(const position_type& at, std::int64_t max_version, bool with_schema) {
    std::string& out = metadata;
    out.clear();
    out += std::string_view("{\"arrived\":[");  // views: no strlen per literal
    for (std::size_t j = 0; j < A::join_count; ++j) {
      if (j != 0) out += ',';
      write_names(out, at.arrived[j]);
    }
    out += std::string_view("],\"max_version\":");
    write_json_integer(out, max_version);
    out += std::string_view(",\"next\":");
    write_names(out, at.active);
    out += run_field_;
    out += std::string_view(",\"run_step\":");
    write_json_integer(out, at.step);
    if (with_schema) {
      out += ",\"schema\":";
      out += schema_list_text<S>();
    }
    out += std::string_view(",\"sends\":{");
    bool first = true;
    for_each_index<A::size>([&]<std::size_t I>() {
      if constexpr (!std::is_same_v<typename App::template queue_for_node<I>, no_queue>) {
        const auto& queue = std::get<I>(at.sends);
        if (queue.empty()) return;
        if (!first) out += ',';
        first = false;
        write_json_string(out, App::node_names[I]);
        out += ':';
        write_json(out, queue);
      }
    });
    out += std::string_view("}}");
  }

 private:
  static void write_names(std::string& out, const typename A::set& nodes) {
    out += '[';
    bool first = true;
    for (std::size_t i = 0; i < A::size; ++i)
      if (nodes.test(i)) {
        if (!first) out += ',';
        first = false;
        out += quoted_names()[i];
      }
    out += ']';
  }

  // The node names as JSON strings, written once.
  static const std::array<std::string, A::size>& quoted_names() {
    static const std::array<std::string, A::size> names = [] {
      std::array<std::string, A::size> out;
      for (std::size_t i = 0; i < A::size; ++i) write_json_string(out[i], App::node_names[i]);
      return out;
    }();
    return names;
  }

  std::array<std::string, channels> texts_{};
  std::string run_field_;  // ,"run":"<run_tag>"
};

// Reads the position back from parsed metadata. `node_index` maps a stored node name to
// the graph's index (and throws checkpoint_error for a name the graph lacks); `where`
// names the checkpoint in errors. Anything of the wrong shape or out of range is refused
// with checkpoint_error.
template <class App, class NodeIndex>
void read_position(const nlohmann::json& meta, typename App::position_type& pos, std::int64_t& max_version,
                   NodeIndex&& node_index, std::string_view where) {
  using A = typename App::analysis_type;
  auto bad = [&](const char* why) {
    return checkpoint_error("stategraph: " + std::string(where) + " has bad metadata: " + why);
  };
  try {
    pos.step = read_json_as<std::size_t>(meta.at("run_step"));
    for (const auto& n : meta.at("next")) pos.active.set(node_index(n.template get<std::string>()));
    const auto& arrived = meta.at("arrived");
    if (!arrived.is_array() || arrived.size() != A::join_count)
      throw checkpoint_error("stategraph: " + std::string(where) + ": checkpoint joins do not match the graph");
    for (std::size_t j = 0; j < A::join_count; ++j)
      for (const auto& n : arrived[j]) pos.arrived[j].set(node_index(n.template get<std::string>()));
    const auto& sends = meta.at("sends");
    for (auto it = sends.begin(); it != sends.end(); ++it) {
      const std::size_t target = node_index(it.key());
      for_each_index<A::size>([&]<std::size_t I>() {
        using queue = typename App::template queue_for_node<I>;
        if constexpr (!std::is_same_v<queue, no_queue>)
          if (I == target) std::get<I>(pos.sends) = decode_value<queue>(*it, "pending sends");
      });
    }
    max_version = read_json_as<std::int64_t>(meta.at("max_version"));
  } catch (const nlohmann::json::exception& e) {
    throw bad(e.what());
  } catch (const json_value_error& e) {
    throw bad(e.what());
  }
}

}  // namespace stategraph::detail
