// Hardware= values and the comparison of a node's hardware with them.
#include "hardware_spec.hpp"

#include <array>

#include "text.hpp"

namespace shareq {
namespace {

constexpr std::string_view kAllowed =
    "allowed: a comma-separated list of gpus=N, numa=N, cores=N (each optional, each once; "
    "gpus 0..1000000, numa and cores 1..1000000)";

// Each key with its smallest count: a node may have no GPU, but every node has at least one
// NUMA node and one core, so numa=0 or cores=0 would fail every node of the family.
struct Key {
  std::string_view name;
  std::optional<int64_t> HardwareSpec::*field;
  int64_t min;
  std::string_view range;
};
constexpr std::array<Key, 3> kKeys = {
    Key{"gpus", &HardwareSpec::gpus, 0, "an integer 0..1000000"},
    Key{"numa", &HardwareSpec::numa, 1, "an integer 1..1000000"},
    Key{"cores", &HardwareSpec::cores, 1, "an integer 1..1000000"}};

Error bad(std::string message) { return Error{"Hardware", std::move(message)}; }

// "7 GPUs", "1 GPU": a count and its noun, singular for 1.
std::string count_of(int64_t count, std::string_view singular, std::string_view plural) {
  return std::to_string(count) + " " + std::string(count == 1 ? singular : plural);
}

}  // namespace

Result<HardwareSpec> parse_hardware_spec(std::string_view value) {
  if (value.empty()) {
    return bad("empty value; " + std::string(kAllowed));
  }
  HardwareSpec spec;
  for (std::string_view item : text::split(value, ',')) {
    const size_t eq = item.find('=');
    if (item.empty() || eq == std::string_view::npos) {
      return bad((item.empty() ? std::string("empty item") : text::quote(item) + " is not key=N") +
                 " in " + text::quote(value) + "; " + std::string(kAllowed));
    }
    const std::string_view name = item.substr(0, eq);
    const std::string_view number = item.substr(eq + 1);
    const Key* key = nullptr;
    for (const Key& k : kKeys) {
      if (text::iequals(k.name, name)) key = &k;
    }
    if (key == nullptr) {
      return bad("unknown key " + text::quote(name) + "; " + std::string(kAllowed));
    }
    std::optional<int64_t>& slot = spec.*(key->field);
    if (slot) {
      return bad(std::string(key->name) + " given twice; " + std::string(kAllowed));
    }
    const text::Number parsed =
        text::parse_decimal(number, static_cast<uint64_t>(kMaxHardwareCount));
    if (parsed.status == text::NumberStatus::Empty) {
      return bad(std::string(key->name) + " has no value; " + std::string(kAllowed));
    }
    if (parsed.status != text::NumberStatus::Ok) {
      return bad(std::string(key->name) + ": " + text::number_message(number, parsed, key->range));
    }
    if (static_cast<int64_t>(parsed.value) < key->min) {
      return bad(std::string(key->name) + ": " + std::string(number) +
                 " is out of range (every node has at least one " +
                 (key->name == "numa" ? "NUMA node" : "core") +
                 "); allowed: " + std::string(key->range));
    }
    slot = static_cast<int64_t>(parsed.value);
  }
  return spec;
}

std::string format_hardware_spec(const HardwareSpec& spec) {
  std::string out;
  for (const Key& key : kKeys) {
    if (const std::optional<int64_t>& value = spec.*(key.field)) {
      out += (out.empty() ? "" : ",") + std::string(key.name) + "=" + std::to_string(*value);
    }
  }
  return out;
}

std::vector<std::string> hardware_mismatches(const HardwareFacts& facts, const HardwareSpec& spec,
                                             std::string_view family) {
  std::vector<std::string> out;
  auto check = [&](const std::optional<int64_t>& expected, int64_t found, std::string_view singular,
                   std::string_view plural) {
    if (expected && *expected != found) {
      out.push_back(count_of(found, singular, plural) + " found, family " + std::string(family) +
                    " expects " + std::to_string(*expected));
    }
  };
  check(spec.gpus, facts.gpus, "GPU", "GPUs");
  check(spec.numa, facts.numa, "NUMA node", "NUMA nodes");
  check(spec.cores, facts.cores, "core", "cores");
  return out;
}

std::string describe_hardware(const HardwareFacts& facts) {
  return count_of(facts.gpus, "GPU", "GPUs") + ", " +
         count_of(facts.numa, "NUMA node", "NUMA nodes") + ", " +
         count_of(facts.cores, "core", "cores");
}

}  // namespace shareq
