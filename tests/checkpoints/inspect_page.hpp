// What the inspector tests read back from a written page.
#pragma once

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace inspect_page {

// The JSON the page embeds for its script.
inline nlohmann::json data(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"sg-data\">";
  const auto from = page.find(open);
  REQUIRE(from != std::string::npos);
  const auto to = page.find("</script>", from);
  REQUIRE(to != std::string::npos);
  return nlohmann::json::parse(page.substr(from + open.size(), to - from - open.size()));
}

}  // namespace inspect_page
