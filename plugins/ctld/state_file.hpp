// The controller's own state files in StateSaveLocation (decayed usage, warm pools, reclaims in
// flight): each replaced as a whole, so a crash or a full disk never leaves half a file.
#pragma once

#include <optional>
#include <string>

namespace shareq::ctld {

// How far a write must survive: a crash of slurmctld (write and rename), or also one of the
// machine (fsync before the rename).
enum class Durability { ProcessCrash, MachineCrash };

// Writes `text` to PATH.new and renames it over `path`. nullopt on success, else a sentence
// naming the file and the system's reason (PATH.new is then removed).
std::optional<std::string> write_file_atomically(const std::string& path, const std::string& text,
                                                 Durability durability = Durability::MachineCrash);

// The whole file, or nullopt when it cannot be read (most often: it does not exist yet) or is not
// a regular file (a FIFO would block the reader: open_regular_file).
std::optional<std::string> read_state_file(const std::string& path);

}  // namespace shareq::ctld
