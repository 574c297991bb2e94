#include "usage_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "state_file.hpp"

extern "C" {
#include "src/common/xstring.h"
}

struct shareq_usage_file {
  shareq::ctld::UsageFile file;
};

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

extern "C" {

int shareq_usage_write(const char* path, int64_t last_ran, const shareq_usage_entry_t* entries,
                       size_t count, char** err) {
  try {
    shareq::ctld::UsageFile file;
    file.last_ran = last_ran;
    for (size_t i = 0; i < count; ++i) {
      file.records.push_back({entries[i].share, entries[i].family, entries[i].value});
    }
    const auto why = shareq::ctld::write_usage_file(path, file);
    if (!why) return 0;
    if (err != nullptr) *err = xstrdup(why->c_str());
  } catch (const std::exception& e) {
    if (err != nullptr) *err = xstrdup(e.what());
  }
  return -1;
}

shareq_usage_file_t* shareq_usage_read(const char* path, char** err) {
  try {
    auto result = shareq::ctld::read_usage_file(path);
    if (result) return new shareq_usage_file{std::move(result).value()};
    if (err != nullptr) *err = xstrdup(result.error().to_string().c_str());
  } catch (const std::exception& e) {
    if (err != nullptr) *err = xstrdup(e.what());
  }
  return nullptr;
}

int64_t shareq_usage_last_ran(const shareq_usage_file_t* file) { return file->file.last_ran; }

size_t shareq_usage_count(const shareq_usage_file_t* file) { return file->file.records.size(); }

shareq_usage_entry_t shareq_usage_get(const shareq_usage_file_t* file, size_t i) {
  const auto& r = file->file.records.at(i);
  return shareq_usage_entry_t{r.share.c_str(), r.family.c_str(), r.value};
}

void shareq_usage_free(shareq_usage_file_t* file) { delete file; }

}  // extern "C"
