// Opening a file that is to be read whole (shareq.conf in slurmctld and check-config, shareq
// sim's inputs): what is not a regular file is refused before anything reads it, since a FIFO
// without a writer, or a device, would make the reader wait forever or read without end.
#pragma once

#include <cstddef>
#include <string>
#include <variant>

namespace shareq {

// What open_regular_file takes besides a regular file (or a symbolic link to one).
enum class HeldPipes {
  Refuse,
  // Also a FIFO that this process already holds open: standard input named /dev/stdin, or a
  // shell's process substitution (/dev/fd/63). Its writer is the caller's, so reading it waits
  // on that writer; a FIFO that nothing in this process holds is still refused.
  Read,
};

// A descriptor open for reading (blocking, close-on-exec; the caller closes it), or why `path`
// cannot be read: "cannot read: REASON" (the OS's) or "is a FIFO, not a regular file; allowed: a
// regular file (or a symbolic link to one)" (a directory, a character device, ... likewise). The
// file is opened with O_NONBLOCK, so that opening a FIFO does not wait for a writer, and judged by
// fstat before any read.
std::variant<int, std::string> open_regular_file(const std::string& path,
                                                 HeldPipes pipes = HeldPipes::Refuse);

// Why read_regular_file gave no text: open_regular_file's words or the OS's for a failed read,
// or (too_large) only that the file has more than max_bytes.
struct ReadFailure {
  std::string why;
  bool too_large = false;
};

// Everything `fd` gives until its end, read with retries of a read a signal interrupted; more than
// `max_bytes` (0: no bound) is a failure, the rest unread. `fd` is closed in every case. A failed
// read's `why` is the OS's words alone ("Input/output error").
std::variant<std::string, ReadFailure> read_to_end_and_close(int fd, size_t max_bytes);

// The whole of the regular file `path` (open_regular_file, HeldPipes::Refuse), read to its end;
// more than `max_bytes` (0: no bound) is a failure, the rest unread.
std::variant<std::string, ReadFailure> read_regular_file(const std::string& path, size_t max_bytes);

}  // namespace shareq
