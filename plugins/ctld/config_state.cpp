#include "config_state.hpp"

#include <utility>

#include "controller_state.hpp"
#include "log.hpp"
#include "slurm_conf_access.hpp"
#include "state_writer.hpp"

namespace shareq::ctld {

std::string shareq_conf_path(const std::string& slurm_conf_path) {
  return shareq_conf_beside(slurm_conf_path);
}

namespace {

constexpr const char* kLastGoodFile = "shareq_conf_last_good";

ConfigHolder& process_holder() {
  ConfigPart& part = config_part();
  std::call_once(part.made, [&] {
    ConfigHolder::LastGoodCopy last_good{
        state_file_path(kLastGoodFile), [](const std::string& path, std::string text) {
          save_state_later(path, std::move(text), Durability::MachineCrash,
                           "last good shareq.conf");
        }};
    part.holder.emplace(
        shareq_conf_path(slurm_conf_file()),
        [](const std::string& line) { log_error("%s", line.c_str()); },
        [](const std::string& line) { log_info("%s", line.c_str()); }, ConfigHolder::Clock{},
        std::move(last_good));
  });
  return *part.holder;
}

}  // namespace

std::shared_ptr<const LoadedConfig> current_config() { return process_holder().current(); }

std::shared_ptr<const LoadedConfig> refresh_config() { return process_holder().refresh(); }

void request_config_reload() { process_holder().request_reload(); }

}  // namespace shareq::ctld
