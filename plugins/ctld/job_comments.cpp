#include "job_comments.hpp"

#include "slurmctld_headers.hpp"

namespace shareq::ctld {

void set_system_comment(job_record_t* job, const std::string& text) {
  xfree(job->system_comment);
  job->system_comment = xstrdup(text.c_str());
}

void append_system_comment(job_record_t* job, const std::string& text) {
  if (job->system_comment != nullptr && job->system_comment[0] != '\0') {
    set_system_comment(job, std::string(job->system_comment) + "; " + text);
  } else {
    set_system_comment(job, text);
  }
}

void append_admin_word(job_record_t* job, const std::string& word) {
  const std::string old = job->admin_comment != nullptr ? job->admin_comment : "";
  if ((" " + old + " ").find(" " + word + " ") != std::string::npos) return;
  const std::string text = old.empty() ? word : old + " " + word;
  xfree(job->admin_comment);
  job->admin_comment = xstrdup(text.c_str());
}

}  // namespace shareq::ctld
