// Streaming SHA-256 over OpenSSL's EVP interface (internal header).
#pragma once

#include <cstddef>
#include <string>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX

namespace shareq::imagecache {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(const void* data, size_t size);
  // The digest of everything passed to update, as 64 lower-case hex digits. Call once.
  std::string finish();

 private:
  ::evp_md_ctx_st* ctx_;
};

}  // namespace shareq::imagecache
