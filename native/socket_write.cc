// Node-API binding that writes a batch of lines, each to its own socket, in one call: on a job
// push every miner gets one line, and Node's stream write costs several microseconds per socket
// in user space on top of the kernel's send (measured in benchmarks/stratum/loopback-write-floor.ts).
// POSIX only; elsewhere supported() is false and the pool writes through Node.
//
// Exports:
//   writeLines(fds: Int32Array, data: Uint8Array, ends: Uint32Array, count: number,
//              results: Int32Array): void
//     line i is data[ends[i - 1] (0 for the first) .. ends[i]) and goes to fds[i] with one
//     non-blocking send(); results[i] is the bytes the kernel took (maybe fewer than the line) or
//     -errno (EAGAIN when it took none). A negative fd is skipped (-EBADF): the caller's socket
//     closed since it queued the line. send() fails on a descriptor that is not a socket, so a
//     number reused for a file is never written to.
//   supported(): boolean
// Bad arguments throw a TypeError or RangeError; nothing is written then.
#include <napi.h>

#include <cerrno>
#include <cstdint>

#ifndef _WIN32
#include <sys/socket.h>
#include <sys/types.h>
#endif

namespace {

bool IsTyped(const Napi::Value& value, napi_typedarray_type type) {
  return value.IsTypedArray() && value.As<Napi::TypedArray>().TypedArrayType() == type;
}

Napi::Value Supported(const Napi::CallbackInfo& info) {
#ifndef _WIN32
  return Napi::Boolean::New(info.Env(), true);
#else
  return Napi::Boolean::New(info.Env(), false);
#endif
}

#ifndef _WIN32
// Node ignores SIGPIPE already; MSG_NOSIGNAL says so per call where it exists (not on macOS).
#ifdef MSG_NOSIGNAL
constexpr int kSendFlags = MSG_DONTWAIT | MSG_NOSIGNAL;
#else
constexpr int kSendFlags = MSG_DONTWAIT;
#endif

int32_t SendLine(int fd, const uint8_t* bytes, size_t length) {
  for (;;) {
    const ssize_t sent = send(fd, bytes, length, kSendFlags);
    if (sent >= 0) return static_cast<int32_t>(sent);
    if (errno != EINTR) return errno == EWOULDBLOCK ? -EAGAIN : -errno;
  }
}
#endif

Napi::Value WriteLines(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 5 || !IsTyped(info[0], napi_int32_array) || !IsTyped(info[1], napi_uint8_array) ||
      !IsTyped(info[2], napi_uint32_array) || !info[3].IsNumber() || !IsTyped(info[4], napi_int32_array)) {
    Napi::TypeError::New(env, "writeLines(fds: Int32Array, data: Uint8Array, ends: Uint32Array, count, results: Int32Array)")
        .ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Int32Array fds = info[0].As<Napi::Int32Array>();
  Napi::Uint8Array data = info[1].As<Napi::Uint8Array>();
  Napi::Uint32Array ends = info[2].As<Napi::Uint32Array>();
  Napi::Int32Array results = info[4].As<Napi::Int32Array>();
  const double wanted = info[3].As<Napi::Number>().DoubleValue();
  // Range first: casting a double beyond size_t is undefined.
  if (!(wanted >= 0 && wanted <= 4294967295.0) || wanted != static_cast<double>(static_cast<size_t>(wanted)) ||
      static_cast<size_t>(wanted) > fds.ElementLength() || static_cast<size_t>(wanted) > ends.ElementLength() ||
      static_cast<size_t>(wanted) > results.ElementLength()) {
    Napi::RangeError::New(env, "writeLines: count must be an integer within every array").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const size_t count = static_cast<size_t>(wanted);
  uint32_t previous = 0;
  for (size_t i = 0; i < count; i++) {
    if (ends[i] < previous || ends[i] > data.ByteLength()) {
      Napi::RangeError::New(env, "writeLines: ends must rise within data")
          .ThrowAsJavaScriptException();
      return env.Undefined();
    }
    previous = ends[i];
  }
#ifndef _WIN32
  uint32_t start = 0;
  for (size_t i = 0; i < count; i++) {
    results[i] = fds[i] < 0 ? -EBADF : SendLine(fds[i], data.Data() + start, ends[i] - start);
    start = ends[i];
  }
#else
  for (size_t i = 0; i < count; i++) results[i] = -38;  // ENOSYS: the caller writes through Node
#endif
  return env.Undefined();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("writeLines", Napi::Function::New(env, WriteLines, "writeLines"));
  exports.Set("supported", Napi::Function::New(env, Supported, "supported"));
  return exports;
}

}  // namespace

NODE_API_MODULE(fuego_socket_write, Init)
