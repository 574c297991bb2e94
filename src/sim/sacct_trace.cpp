#include "sim/sacct_trace.hpp"

#include <array>

#include "sim/time_text.hpp"
#include "text.hpp"

namespace shareq::sim {
namespace {

enum Column {
  kJobId,
  kAccount,
  kPartition,
  kSubmit,
  kStart,
  kEnd,
  kElapsed,
  kAllocTres,
  kReqTres,
  kNNodes,
  kState,
  kAdminComment,
  kColumnCount
};
constexpr std::array<std::string_view, kColumnCount> kColumnNames = {
    "JobID",   "Account",   "Partition", "Submit", "Start", "End",
    "Elapsed", "AllocTRES", "ReqTRES",   "NNodes", "State", "AdminComment"};
constexpr int kMissing = -1;

using Header = std::array<int, kColumnCount>;  // column -> field index, or kMissing

std::optional<int64_t> tres_gpus(std::string_view tres) {
  std::optional<int64_t> plain, typed;
  for (std::string_view item : text::split(tres, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = item.substr(0, eq);
    const auto value = text::parse_decimal(item.substr(eq + 1), 1'000'000'000);
    if (value.status != text::NumberStatus::Ok) continue;
    if (text::iequals(key, "gres/gpu")) plain = static_cast<int64_t>(value.value);
    if (key.size() > 9 && text::iequals(key.substr(0, 9), "gres/gpu:")) {
      typed = typed.value_or(0) + static_cast<int64_t>(value.value);
    }
  }
  return plain ? plain : typed;
}

std::optional<int> comment_priority(std::string_view comment) {
  const size_t at = comment.find("priority=");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view value = comment.substr(at + 9);
  value = value.substr(0, value.find(','));
  const auto parsed = text::parse_decimal(value, 99);
  if (parsed.status != text::NumberStatus::Ok) return std::nullopt;
  return static_cast<int>(parsed.value);
}

class Reader {
 public:
  explicit Reader(std::string_view file) : file_(file) {}

  bool header(std::string_view line) {
    header_.fill(kMissing);
    const auto names = text::split(line, '|');
    for (size_t i = 0; i < names.size(); ++i) {
      for (size_t c = 0; c < kColumnCount; ++c) {
        if (text::iequals(names[i], kColumnNames[c])) header_[c] = static_cast<int>(i);
      }
    }
    return check_header();
  }

  void row(std::string_view line, int number) {
    if (line.empty()) return;
    fields_ = text::split(line, '|');
    if (fields_.size() < width_) {
      return error(number, "",
                   "has " + std::to_string(fields_.size()) + " fields, the header " +
                       std::to_string(width_));
    }
    line_ = number;
    job();
  }

  Parsed<Trace> finish() {
    Parsed<Trace> out;
    out.errors = std::move(errors_);
    if (out.errors.empty()) out.value = std::move(trace_);
    return out;
  }

  void error(int line, std::string field, std::string message) {
    if (errors_.size() < kMaxInputErrors) {
      errors_.push_back({std::string(file_), line, std::move(field), std::move(message)});
    }
  }

 private:
  bool check_header() {
    std::vector<std::string> missing;
    for (Column c : {kJobId, kAccount, kPartition, kSubmit}) {
      if (header_[c] == kMissing) missing.emplace_back(kColumnNames[c]);
    }
    if (header_[kElapsed] == kMissing &&
        (header_[kStart] == kMissing || header_[kEnd] == kMissing)) {
      missing.emplace_back("Elapsed (or Start and End)");
    }
    if (header_[kAllocTres] == kMissing && header_[kReqTres] == kMissing) {
      missing.emplace_back("AllocTRES or ReqTRES");
    }
    if (!missing.empty()) {
      error(1, "header",
            "missing " + text::join(missing) +
                "; needed: JobID|Account|Partition|Submit|Elapsed|AllocTRES "
                "(sacct --parsable2 -o ...), see shareq(1)");
      return false;
    }
    for (int index : header_) width_ = std::max(width_, static_cast<size_t>(index + 1));
    return true;
  }

  std::string_view field(Column c) const {
    return header_[c] == kMissing ? std::string_view() : fields_[header_[c]];
  }

  bool never_ran() const {
    const std::string_view start = field(kStart), state = field(kState);
    return start == "Unknown" || start == "None" ||
           (state.size() >= 7 && text::iequals(state.substr(0, 7), "PENDING"));
  }

  void job() {
    const std::string_view id = field(kJobId);
    if (id.find('.') != std::string_view::npos) return trace_.skip("job step");
    if (never_ran()) return trace_.skip("never ran");
    TraceJob job;
    job.id = std::string(id);
    job.line = line_;
    if (!share_and_partitions(job) || !times(job) || !resources(job)) return;
    if (job.run_s <= 0) return trace_.skip("never ran");
    if (job.gpus <= 0) return trace_.skip("no GPUs");
    if (header_[kAdminComment] != kMissing) job.priority = comment_priority(field(kAdminComment));
    trace_.jobs.push_back(std::move(job));
  }

  bool share_and_partitions(TraceJob& job) {
    job.share = std::string(field(kAccount));
    if (job.share.empty()) return fail("Account", "is empty; the account is the job's share");
    for (std::string_view p : text::split(field(kPartition), ',')) {
      if (p.empty())
        return fail("Partition",
                    text::quote(field(kPartition)) + " is not a partition list (p5 or p5,p4)");
      job.partitions.emplace_back(p);
    }
    return true;
  }

  bool times(TraceJob& job) {
    const auto submit = parse_timestamp(field(kSubmit));
    if (!submit) return fail("Submit", bad_time(field(kSubmit)));
    job.submit = *submit;
    if (header_[kElapsed] != kMissing) {
      const auto elapsed = parse_elapsed(field(kElapsed));
      if (!elapsed) {
        return fail("Elapsed", text::quote(field(kElapsed)) +
                                   " is not a duration; allowed: [D-]HH:MM:SS or MM:SS");
      }
      job.run_s = *elapsed;
      return true;
    }
    const auto start = parse_timestamp(field(kStart)), end = parse_timestamp(field(kEnd));
    if (!start) return fail("Start", bad_time(field(kStart)));
    if (!end) return fail("End", bad_time(field(kEnd)));
    job.run_s = *end - *start;
    return true;
  }

  bool resources(TraceJob& job) {
    std::optional<int64_t> gpus;
    if (header_[kAllocTres] != kMissing) gpus = tres_gpus(field(kAllocTres));
    if (!gpus && header_[kReqTres] != kMissing) gpus = tres_gpus(field(kReqTres));
    job.gpus = gpus.value_or(0);
    if (header_[kNNodes] == kMissing || field(kNNodes).empty()) return true;
    const auto nodes = text::parse_decimal(field(kNNodes), 1'000'000);
    if (nodes.status != text::NumberStatus::Ok) {
      return fail("NNodes", text::number_message(field(kNNodes), nodes, "1..1000000"));
    }
    job.nodes = static_cast<int64_t>(nodes.value);
    return true;
  }

  static std::string bad_time(std::string_view value) {
    return text::quote(value) + " is not a time; allowed: YYYY-MM-DDTHH:MM:SS";
  }

  bool fail(std::string field, std::string message) {
    error(line_, std::move(field), std::move(message));
    return false;
  }

  std::string_view file_;
  Header header_{};
  size_t width_ = 0;
  std::vector<std::string_view> fields_;
  int line_ = 0;
  Trace trace_;
  std::vector<InputError> errors_;
};

}  // namespace

Parsed<Trace> parse_sacct_trace(std::string_view text, std::string_view file) {
  Reader reader(file);
  const auto lines = split_lines(text);
  if (lines.empty()) {
    reader.error(0, "header", "the trace is empty; it needs sacct --parsable2's header line");
    return reader.finish();
  }
  if (!reader.header(lines[0])) return reader.finish();
  for (size_t i = 1; i < lines.size(); ++i) reader.row(lines[i], static_cast<int>(i + 1));
  return reader.finish();
}

}  // namespace shareq::sim
