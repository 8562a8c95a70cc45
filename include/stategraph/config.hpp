// Per-node configuration in layers: a default layer, and per node a layer that overrides
// some of its fields — the override wins, the fields it lacks fall back to the default
// (scenarios.md §1). Config is any aggregate; fields are named by member pointer.
//
//   sg::config_layers<model_config> cfg{{.model = "small", .temperature = 0.2}};
//   cfg.set<&model_config::model>("review", "large");
//   model_config c = cfg.for_node<review>();   // model "large", temperature 0.2
#pragma once

#include <stategraph/node.hpp>
#include <stategraph/schema.hpp>

#include <boost/pfr/core.hpp>
#include <boost/pfr/tuple_size.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace stategraph {

template <class Config>
class config_layers {
  template <class Seq>
  struct layer_of;
  template <std::size_t... I>
  struct layer_of<std::index_sequence<I...>> {
    using type = std::tuple<std::optional<boost::pfr::tuple_element_t<I, Config>>...>;
  };

 public:
  // What one node overrides: each field present or not.
  using layer = typename layer_of<std::make_index_sequence<boost::pfr::tuple_size_v<Config>>>::type;

  config_layers() = default;
  explicit config_layers(Config defaults) : defaults_(std::move(defaults)) {}

  const Config& defaults() const noexcept { return defaults_; }
  Config& defaults() noexcept { return defaults_; }

  // Overrides one field for one node (by the node's name, e.g. node_traits<N>::name).
  template <auto Field, class V>
  config_layers& set(std::string_view node, V&& value) {
    static_assert(std::is_same_v<state_of<Field>, Config>, "the field must be a member of this config type");
    constexpr std::size_t index = channel_index<Config, Field>();
    std::get<index>(layer_for(node)) = std::forward<V>(value);
    return *this;
  }
  template <auto Field, class Node, class V>
  config_layers& set(V&& value) {
    return set<Field>(node_traits<Node>::name, std::forward<V>(value));
  }

  // The default layer merged with the node's layer: each field the node overrides wins.
  Config for_node(std::string_view node) const {
    Config out = defaults_;
    auto it = find(node);
    if (it == layers_.end()) return out;
    detail::for_each_index<boost::pfr::tuple_size_v<Config>>([&]<std::size_t I>() {
      if (const auto& v = std::get<I>(it->second)) boost::pfr::get<I>(out) = *v;
    });
    return out;
  }
  template <class Node>
  Config for_node() const {
    return for_node(node_traits<Node>::name);
  }

  // Does `node` override the field?
  template <auto Field>
  bool overrides(std::string_view node) const {
    auto it = find(node);
    return it != layers_.end() && std::get<channel_index<Config, Field>()>(it->second).has_value();
  }

 private:
  using entry_list = std::vector<std::pair<std::string, layer>>;
  typename entry_list::const_iterator find(std::string_view node) const {
    return std::find_if(layers_.begin(), layers_.end(), [&](const auto& e) { return e.first == node; });
  }
  layer& layer_for(std::string_view node) {
    auto it = std::find_if(layers_.begin(), layers_.end(), [&](const auto& e) { return e.first == node; });
    if (it != layers_.end()) return it->second;
    layers_.emplace_back(std::string(node), layer{});
    return layers_.back().second;
  }

  Config defaults_{};
  entry_list layers_;
};

}  // namespace stategraph
