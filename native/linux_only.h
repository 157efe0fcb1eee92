// supported() for an addon whose work needs Linux (socket filters, epoll): true there, false
// elsewhere, where its loader says so and the caller does without it.
#ifndef FUEGO_NATIVE_LINUX_ONLY_H
#define FUEGO_NATIVE_LINUX_ONLY_H

#include <napi.h>

namespace fuego {

inline Napi::Value SupportedOnLinux(const Napi::CallbackInfo& info) {
#ifdef __linux__
  return Napi::Boolean::New(info.Env(), true);
#else
  return Napi::Boolean::New(info.Env(), false);
#endif
}

}  // namespace fuego

#endif  // FUEGO_NATIVE_LINUX_ONLY_H
