// Node-API binding that attaches a classic BPF program to a listening socket, so the kernel drops
// a flooding peer's connection attempts (its SYNs) before they are accepted: refusing them in
// Node costs an accept, a handle and a reset each, on the same event loop as the honest miners.
// Linux only; elsewhere both calls report that they are unsupported.
//
// Exports:
//   attachFilter(fd: number, program: Uint32Array): void  four numbers per instruction:
//     code, jt, jf, k (struct sock_filter); replaces any filter already attached
//   detachFilter(fd: number): void                         no filter afterwards (none is fine)
//   supported(): boolean
// Errors are thrown as Error with `code` set to the errno name ("EBADF", "EINVAL", ...), or
// "UNSUPPORTED".
#include <napi.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "linux_only.h"

#ifdef __linux__
#include <linux/filter.h>
#include <sys/socket.h>
#endif

namespace {

Napi::Value Throw(const Napi::Env& env, const char* code, const char* message) {
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, code));
  error.ThrowAsJavaScriptException();
  return env.Undefined();
}

bool ReadFd(const Napi::CallbackInfo& info, int* fd) {
  if (info.Length() < 1 || !info[0].IsNumber()) return false;
  const double value = info[0].As<Napi::Number>().DoubleValue();
  if (value < 0 || value > 2147483647 || value != static_cast<int>(value)) return false;
  *fd = static_cast<int>(value);
  return true;
}

Napi::Value AttachFilter(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = -1;
  if (!ReadFd(info, &fd)) return Throw(env, "EINVAL", "attachFilter: fd must be a non-negative integer");
  if (info.Length() < 2 || !info[1].IsTypedArray() ||
      info[1].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array) {
    return Throw(env, "EINVAL", "attachFilter: program must be a Uint32Array");
  }
  Napi::Uint32Array words = info[1].As<Napi::Uint32Array>();
  const size_t count = words.ElementLength() / 4;
  if (count == 0 || words.ElementLength() % 4 != 0 || count > 4096) {
    return Throw(env, "EINVAL", "attachFilter: program must hold 1..4096 instructions of four numbers");
  }
#ifdef __linux__
  std::vector<sock_filter> code(count);
  for (size_t i = 0; i < count; i++) {
    const uint32_t op = words[4 * i], jt = words[4 * i + 1], jf = words[4 * i + 2];
    if (op > 0xffff || jt > 0xff || jf > 0xff) return Throw(env, "EINVAL", "attachFilter: instruction out of range");
    code[i] = sock_filter{static_cast<uint16_t>(op), static_cast<uint8_t>(jt), static_cast<uint8_t>(jf), words[4 * i + 3]};
  }
  sock_fprog program{static_cast<unsigned short>(count), code.data()};
  if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof program) != 0) {
    const int error = errno;
    return Throw(env, error == EBADF ? "EBADF" : error == ENOTSOCK ? "ENOTSOCK" : error == ENOMEM ? "ENOMEM" : "EINVAL",
                 std::strerror(error));
  }
  return env.Undefined();
#else
  (void)fd;
  return Throw(env, "UNSUPPORTED", "socket filters are only supported on Linux");
#endif
}

Napi::Value DetachFilter(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  int fd = -1;
  if (!ReadFd(info, &fd)) return Throw(env, "EINVAL", "detachFilter: fd must be a non-negative integer");
#ifdef __linux__
  int unused = 0;
  // ENOENT: no filter was attached, which is what the caller wants.
  if (setsockopt(fd, SOL_SOCKET, SO_DETACH_FILTER, &unused, sizeof unused) != 0 && errno != ENOENT) {
    const int error = errno;
    return Throw(env, error == EBADF ? "EBADF" : error == ENOTSOCK ? "ENOTSOCK" : "EINVAL", std::strerror(error));
  }
  return env.Undefined();
#else
  (void)fd;
  return Throw(env, "UNSUPPORTED", "socket filters are only supported on Linux");
#endif
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("attachFilter", Napi::Function::New(env, AttachFilter, "attachFilter"));
  exports.Set("detachFilter", Napi::Function::New(env, DetachFilter, "detachFilter"));
  exports.Set("supported", Napi::Function::New(env, fuego::SupportedOnLinux, "supported"));
  return exports;
}

}  // namespace

NODE_API_MODULE(fuego_socket_filter, Init)
