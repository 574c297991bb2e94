// format_config: a Config in canonical shareq.conf syntax, every setting explicit.
#include "config.hpp"
#include "config_settings.hpp"
#include "text.hpp"
#include "units.hpp"

namespace shareq {
namespace {

std::string format_family(const Family& family) {
  std::string out = "Family=" + family.name + " Partitions=" + text::join(family.partitions, ",") +
                    " Capacity=" + units::format_amount(family.unit, family.capacity);
  if (!family.hardware.empty()) {
    out += " Hardware=" + format_hardware_spec(family.hardware);
  }
  if (!family.fallback.empty()) {
    out += " Fallback=" + text::join(family.fallback, ",");
  }
  return out + "\n";
}

std::string format_share(const Config& config, const ShareQuota& share) {
  const Family* family = config.find_family(share.family);
  const Unit unit = family != nullptr ? family->unit : Unit::Node;
  return "Share=" + share.share + " Family=" + share.family +
         " Quota=" + units::format_amount(unit, share.quota) +
         " BorrowLimit=" + units::format_limit(share.borrow_limit, unit) +
         " LendLimit=" + units::format_limit(share.lend_limit, unit) +
         " BorrowWeight=" + units::format_weight(share.borrow_weight) + "\n";
}

}  // namespace

std::string format_config(const Config& config) {
  std::string out = "# shareq.conf, canonical form\n";
  if (config.families.empty()) {
    out += "# No Family: shareq governs no partition.\n";
  }
  for (const Family& family : config.families) {
    out += format_family(family);
  }
  for (const ShareQuota& share : config.shares) {
    out += format_share(config, share);
  }
  for (const settings::GlobalSetting& setting : settings::global_settings()) {
    const std::string value = setting.format(config);
    if (value.empty()) {
      out += "# " + std::string(setting.name) + " is not set\n";
    } else {
      out += std::string(setting.name) + "=" + value + "\n";
    }
  }
  return out;
}

}  // namespace shareq
