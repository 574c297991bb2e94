#include "usage_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "state_file.hpp"

namespace shareq::ctld {

Result<UsageFile> read_usage_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Error{path, std::string("cannot read: ") + std::strerror(errno)};
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_usage(text.str(), path);
}

std::optional<std::string> write_usage_file(const std::string& path, const UsageFile& file) {
  return write_file_atomically(path, format_usage(file));
}

}  // namespace shareq::ctld
