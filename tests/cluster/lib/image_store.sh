# The test cluster's image store: Debian's python3 http.server on 127.0.0.1, serving $D/images
# (NAME and NAME.sha256), so that ImageStore=http://127.0.0.1:PORT is a real HTTP store.
# Sourced by tests/cluster/cluster.

start_image_store() {
  mkdir -p "$D/images"
  # Small images the tests and the demonstration name (opaque bytes; digest published beside).
  local name
  for name in llama-train; do
    head -c 65536 /dev/urandom >"$D/images/$name"
    sha256sum "$D/images/$name" | cut -d' ' -f1 >"$D/images/$name.sha256"
  done
  setsid /usr/bin/python3 -m http.server --bind 127.0.0.1 --directory "$D/images" \
    "$STORE_PORT" </dev/null >"$D/log/image-store.log" 2>&1 &
  echo $! >"$D/run/image-store.pid"
  wait_for "the image store" python3 -c \
    "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$STORE_PORT/', timeout=2)" ||
    fail_with_log "image store" "$D/log/image-store.log"
}

stop_image_store() {
  stop_pidfile "$D/run/image-store.pid" "image store"
}
