// The fuzz driver: the threads the harness corrupts, and one fuzz case (pick a stored
// text, mutate it, run every entry point on it). See fuzz_harness.hpp.
#pragma once

#include "fuzz_harness.hpp"

#include <exception>
#include <sstream>
#include <string>
#include <typeinfo>
#include <utility>
#include <vector>

namespace fuzz {

// Which stored text a case corrupts.
enum class target : unsigned {
  metadata = 1u << 0,
  value = 1u << 1,        // a channel's whole value
  piece = 1u << 2,        // an appended piece of an append channel
  write_value = 1u << 3,  // a pending write's value (a node's result, an interrupt, an answer)
  write_task = 1u << 4,   // a pending write's task ("node#kind")
  write_index = 1u << 5,  // a pending write's index
  numbers = 1u << 6,      // a checkpoint's step, format version or a channel's version
};
inline constexpr unsigned checkpoint_targets = 0b1000111;
inline constexpr unsigned pending_targets = 0b0111000;
inline constexpr unsigned all_targets = checkpoint_targets | pending_targets;

struct outcome {
  std::string failure;   // empty: success or an sg::error
  bool refused = false;  // an entry point that takes the untouched text threw sg::error
  std::string where;     // what was mutated, and how
};

inline std::string shown(const std::string& text) {
  std::string out;
  for (char c : text.substr(0, 300)) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      static constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return text.size() > 300 ? out + "..." : out;
}

class driver {
 public:
  static constexpr const char* threads[] = {"done", "failed", "paused", "static"};

  driver() {
    auto app = sg::compile<graph>(sg::with_store(base_));
    mode = {};
    app.invoke(Fz{}, sg::thread_id{"done"});
    mode.fail_a = true;
    try {
      app.invoke(Fz{}, sg::thread_id{"failed"});
    } catch (const sg::node_error&) {
    }
    mode = {};
    mode.ask_b = true;
    app.invoke(Fz{}, sg::thread_id{"paused"});
    app.resume(sg::thread_id{"paused"}, std::string("ada"));  // answers one question of two
    mode = {};
    auto paused = sg::compile<graph>(sg::with_store(base_), sg::interrupt_before<extra>{});
    paused.invoke(Fz{}, sg::thread_id{"static"});
    view_.discard_writes = true;  // from here on the base never changes
    for (const char* thread : threads)
      for (const auto& info : base_.list(thread)) {
        checkpoints_.emplace_back(thread, info.id);
        if (!base_.pending_writes(thread, info.id).empty()) with_writes_.emplace_back(thread, info.id);
      }
  }

  const sg::memory_store& base() const { return base_; }

  template <class Source>
  outcome run_one(Source& src, unsigned targets) {
    // Only checkpoints that have pending writes, when only pending writes are to be corrupted.
    const auto& among = (targets & checkpoint_targets) ? checkpoints_ : with_writes_;
    const auto& picked = among[static_cast<std::size_t>(src.below(among.size()))];
    const std::string thread = picked.first;
    const std::int64_t id = picked.second;  // a plain variable: Clang 14 cannot capture bindings
    const auto cp = *base_.get(thread, id);
    const auto writes = base_.pending_writes(thread, id);

    std::vector<target> possible;
    for (unsigned bit = 1; bit <= all_targets; bit <<= 1) {
      if (!(targets & bit)) continue;
      auto t = static_cast<target>(bit);
      bool has_piece =
          std::any_of(cp.channels.begin(), cp.channels.end(), [](const auto& c) { return !c.appends.empty(); });
      if ((t == target::piece && !has_piece) || ((bit & pending_targets) != 0 && writes.empty()))
        continue;
      possible.push_back(t);
    }
    if (possible.empty()) return {};
    const target what = possible[static_cast<std::size_t>(src.below(possible.size()))];

    std::size_t channel = 0, piece = 0, row = 0;
    int field = 0;  // of target::numbers: 0 step, 1 format version, 2 a channel's version
    std::string original;
    switch (what) {
      case target::metadata:
        original = cp.metadata;
        break;
      case target::value:
        channel = static_cast<std::size_t>(src.below(cp.channels.size()));
        original = cp.channels[channel].value;
        break;
      case target::piece: {
        std::vector<std::size_t> with;
        for (std::size_t k = 0; k < cp.channels.size(); ++k)
          if (!cp.channels[k].appends.empty()) with.push_back(k);
        channel = with[static_cast<std::size_t>(src.below(with.size()))];
        piece = static_cast<std::size_t>(src.below(cp.channels[channel].appends.size()));
        original = cp.channels[channel].appends[piece];
        break;
      }
      case target::write_value:
        row = static_cast<std::size_t>(src.below(writes.size()));
        original = writes[row].value;
        break;
      case target::write_task:
        row = static_cast<std::size_t>(src.below(writes.size()));
        original = writes[row].task;
        break;
      case target::write_index:
        row = static_cast<std::size_t>(src.below(writes.size()));
        original = std::to_string(writes[row].index);
        break;
      case target::numbers:
        field = static_cast<int>(src.below(3));
        channel = static_cast<std::size_t>(src.below(cp.channels.size()));
        original = field == 0 ? std::to_string(cp.step)
                   : field == 1 ? std::to_string(cp.format_version)
                                : std::to_string(cp.channels[channel].version);
        break;
    }
    std::string mutated;
    std::int32_t index = 0;
    std::int64_t number = 0;
    if (what == target::write_index) {
      static constexpr std::int32_t odd[] = {-1, -2147483647 - 1, 1, 2, 7, 1 << 20, 2147483647};
      index = odd[src.below(std::size(odd))];
      mutated = std::to_string(index);
    } else if (what == target::numbers) {
      constexpr auto max = std::numeric_limits<std::int64_t>::max();
      static constexpr std::int64_t odd[] = {max, max - 1, -max - 1, -5, -1, 0, 1, 2147483648LL, 4294967298LL};
      number = odd[src.below(std::size(odd))];
      if (field == 1) {  // an int
        static constexpr int odd_int[] = {2147483647, -2147483647 - 1, -1, 0, 99};
        number = odd_int[src.below(std::size(odd_int))];
      }
      mutated = std::to_string(number);
    } else {
      mutated = mutate_text(original, src);
    }
    const unsigned baseline = baseline_for(thread, id);  // before the tampering starts
    view_.tamper_checkpoint = [&](sg::stored_checkpoint& c) {
      if (c.id != id) return;
      if (what == target::metadata)
        c.metadata = mutated;
      else if (what == target::value)
        c.channels[channel].value = mutated;
      else if (what == target::piece)
        c.channels[channel].appends[piece] = mutated;
      else if (what == target::numbers && field == 0)
        c.step = number;
      else if (what == target::numbers && field == 1)
        c.format_version = static_cast<int>(number);
      else if (what == target::numbers)
        c.channels[channel].version = number;
    };
    view_.tamper_writes = [&](std::int64_t at, std::vector<sg::pending_write>& w) {
      if (at != id || row >= w.size()) return;
      if (what == target::write_value)
        w[row].value = mutated;
      else if (what == target::write_task)
        w[row].task = mutated;
      else if (what == target::write_index)
        w[row].index = index;
    };

    std::ostringstream where;
    where << "thread '" << thread << "' checkpoint " << id << ", " << describe(what, cp, channel, piece, writes, row)
          << ": '" << shown(original) << "' -> '" << shown(mutated) << "'";
    unsigned refused_ops = 0;
    outcome result{run_all(thread, id, where.str(), refused_ops), false, where.str()};
    result.refused = (refused_ops & ~baseline) != 0;
    view_.tamper_checkpoint = nullptr;
    view_.tamper_writes = nullptr;
    return result;
  }

 private:
  static std::string describe(target what, const sg::stored_checkpoint& cp, std::size_t channel, std::size_t piece,
                              const std::vector<sg::pending_write>& writes, std::size_t row) {
    switch (what) {
      case target::metadata:
        return "metadata";
      case target::value:
        return "value of '" + cp.channels[channel].channel + "'";
      case target::piece:
        return "piece " + std::to_string(piece) + " of '" + cp.channels[channel].channel + "'";
      case target::write_value:
        return "value of pending write '" + writes[row].task + "'";
      case target::write_task:
        return "task of pending write '" + writes[row].task + "'";
      case target::write_index:
        return "index of pending write '" + writes[row].task + "'";
      case target::numbers:
        return "a number of the row (step, format version or the version of '" + cp.channels[channel].channel + "')";
    }
    return "?";
  }

  // Which entry points refuse the untouched checkpoint (resume(value) of a thread with no
  // interrupt, for one): a mutation counts as refused only where it adds a refusal.
  unsigned baseline_for(const std::string& thread, std::int64_t id) {
    auto key = thread + "#" + std::to_string(id);
    if (auto it = baselines_.find(key); it != baselines_.end()) return it->second;
    unsigned refused_ops = 0;
    auto failure = run_all(thread, id, "untouched", refused_ops);
    if (!failure.empty()) throw std::logic_error("the fuzz harness fails without a mutation: " + failure);
    return baselines_[key] = refused_ops;
  }

  // Every entry point that reads the corrupted text; each must succeed or throw sg::error.
  // Returns the first failure; sets a bit in `refused_ops` per entry point that threw sg::error.
  std::string run_all(const std::string& thread, std::int64_t id, const std::string& where, unsigned& refused_ops) {
    auto app = sg::compile<graph>(sg::with_store(view_));
    const sg::thread_id t{thread};
    std::string failure;
    unsigned bit = 1;
    auto attempt = [&](const char* op, auto&& f) {
      if (!failure.empty()) return;
      mode = {};
      mode.ask_b = thread == "paused";
      try {
        f();
      } catch (const sg::error&) {
        refused_ops |= bit;
      } catch (const std::exception& e) {
        failure = std::string(op) + " threw " + typeid(e).name() + " (not an sg::error): " + e.what() + "; " + where;
      } catch (...) {
        failure = std::string(op) + " threw something that is not a std::exception; " + where;
      }
      bit <<= 1;
    };
    attempt("get_state", [&] { (void)app.get_state(t); });
    attempt("get_state(id)", [&] { (void)app.get_state(t, sg::checkpoint_id{id}); });
    attempt("history", [&] { (void)app.history(t); });
    attempt("resume", [&] { (void)app.resume(t); });
    attempt("resume(value)", [&] { (void)app.resume(t, 7); });
    attempt("invoke", [&] { (void)app.invoke(Fz{}, t); });
    attempt("invoke(from id)", [&] { (void)app.invoke(Fz{}, t, sg::checkpoint_id{id}); });
    attempt("resume(from id)", [&] { (void)app.resume(t, sg::checkpoint_id{id}); });
    attempt("update_state",
            [&] { (void)app.update_state(t, sg::write<&Fz::log>(std::string("u")), sg::as_node<extra>); });
    return failure;
  }

  sg::memory_store base_;
  tampering_store<sg::memory_store> view_{base_};
  std::map<std::string, unsigned> baselines_;
  std::vector<std::pair<std::string, std::int64_t>> checkpoints_, with_writes_;  // (thread, id)
};

}  // namespace fuzz
