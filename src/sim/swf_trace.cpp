#include "sim/swf_trace.hpp"

#include <array>

#include "text.hpp"

namespace shareq::sim {
namespace {

constexpr size_t kSwfFields = 18;

struct FieldName {
  int number;  // 1-based, as the SWF documents them
  std::string_view name;
};
constexpr std::array<FieldName, 8> kReadFields = {{{1, "job number"},
                                                   {2, "submit time"},
                                                   {4, "run time"},
                                                   {5, "allocated processors"},
                                                   {8, "requested processors"},
                                                   {12, "user"},
                                                   {13, "group"},
                                                   {15, "queue"}}};

class Reader {
 public:
  Reader(std::string_view file, const SwfMap& map) : file_(file), map_(map) {}

  void line(std::string_view text, int number) {
    const auto words = split_words(text);
    if (words.empty() || words[0].front() == ';') return;
    if (words.size() != kSwfFields) {
      return error(number, "",
                   "has " + std::to_string(words.size()) +
                       " fields; an SWF job line has 18, separated by whitespace");
    }
    std::array<int64_t, kSwfFields + 1> value{};  // [field number]
    for (const FieldName& f : kReadFields) {
      const auto parsed = signed_decimal(words[f.number - 1]);
      if (!parsed) {
        return error(number, "field " + std::to_string(f.number) + " (" + std::string(f.name) + ")",
                     text::quote(words[f.number - 1]) + " is not an integer");
      }
      value[f.number] = *parsed;
    }
    job(value, number);
  }

  Parsed<Trace> finish() {
    Parsed<Trace> out;
    out.errors = std::move(errors_);
    if (out.errors.empty()) out.value = std::move(trace_);
    return out;
  }

 private:
  void job(const std::array<int64_t, kSwfFields + 1>& value, int number) {
    if (value[4] <= 0) return trace_.skip("never ran (run time <= 0)");
    const int64_t gpus = value[8] > 0 ? value[8] : value[5];
    if (gpus <= 0) return trace_.skip("no processors (fields 8 and 5)");
    if (value[2] < 0) {
      return error(number, "field 2 (submit time)", std::to_string(value[2]) + " is negative");
    }
    const SwfTarget target = map_.lookup(value[12], value[13], value[15]);
    TraceJob job;
    job.id = std::to_string(value[1]);
    job.share = target.share;
    job.partitions = {target.partition};
    job.submit = value[2];
    job.run_s = value[4];
    job.gpus = gpus;
    job.priority = target.priority;
    job.line = number;
    trace_.jobs.push_back(std::move(job));
  }

  void error(int line, std::string field, std::string message) {
    if (errors_.size() < kMaxInputErrors) {
      errors_.push_back({std::string(file_), line, std::move(field), std::move(message)});
    }
  }

  std::string_view file_;
  const SwfMap& map_;
  Trace trace_;
  std::vector<InputError> errors_;
};

}  // namespace

Parsed<Trace> parse_swf_trace(std::string_view text, std::string_view file, const SwfMap& map) {
  Reader reader(file, map);
  int number = 0;
  for (std::string_view line : split_lines(text)) reader.line(line, ++number);
  return reader.finish();
}

}  // namespace shareq::sim
