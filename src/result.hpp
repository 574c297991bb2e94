// A value or a human-readable error, for the core's fallible functions (no exceptions, no errno).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace shareq {

// An error that names the field it is about ("--share-priority", "Quota") and says, in one
// sentence, what is wrong and what is allowed.
struct Error {
  std::string field;
  std::string message;

  // "FIELD: MESSAGE", the form shown to users.
  [[nodiscard]] std::string to_string() const { return field + ": " + message; }
};

template <typename T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  // Preconditions: ok() for value(), !ok() for error().
  [[nodiscard]] const T& value() const& { return std::get<T>(state_); }
  [[nodiscard]] T&& value() && { return std::get<T>(std::move(state_)); }
  [[nodiscard]] const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

}  // namespace shareq
