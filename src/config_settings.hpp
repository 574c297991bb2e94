// The global settings of shareq.conf as one table: name, parser, canonical form (internal
// header). The parser and format_config both walk this table, so they cannot drift apart.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "config.hpp"

namespace shareq::settings {

struct GlobalSetting {
  std::string_view name;     // canonical spelling, e.g. "DefaultPriority"
  std::string_view allowed;  // what a value may be, for messages ("0..99")
  // Parses a non-empty value into `config`; returns the error message when it is not allowed.
  std::optional<std::string> (*apply)(Config& config, std::string_view value);
  // The canonical value; "" when the setting is unset (ImageStore by default).
  std::string (*format)(const Config& config);
};

std::span<const GlobalSetting> global_settings();

// The setting whose name matches `key` without regard to case, or nullptr.
const GlobalSetting* find_global_setting(std::string_view key);

}  // namespace shareq::settings
