// Node-API binding for the connections benchmark's load generators (benchmarks/stratum/
// native-job-reader.ts), not used by the pool. The idle simulated miners' sockets are read by one
// thread with its own epoll, which stamps each job notification's arrival: one recv per socket
// and no call into JavaScript, where Node's read of a line costs the two cores the pool shares
// with its load generators several microseconds (README, session of 2026-11-29). After each batch
// of reads the thread sleeps a millisecond, so that one wake-up reads more lines: without the
// pause it caught up with nearly every line and slept again. A job is stamped up to that
// millisecond after its bytes arrived: the push looks slower by as much, never faster.
// Linux only (epoll, eventfd); elsewhere supported() is false and every miner reads through Node.
//
// Exports (one reader per process):
//   start(): void                   starts the thread
//   watch(slot, fd): void           reads the socket `fd` for `slot` (an integer below 2^24, the
//                                   miner's number) from now on; the caller has stopped Node's
//                                   reading of it
//   unwatch(slot): void             stops reading `slot`; call before its socket is closed, so a
//                                   descriptor number reused by another socket is never read
//   arm(height): void               forgets the arrivals; stamps each slot's next job notification
//                                   of at least `height`, counts older ones as late
//   received(): number              slots stamped since arm
//   collect(atMs: Float64Array, heights: Float64Array): { lateEarlier, otherLines, closed }
//                                   per slot the arrival (wall-clock ms, NaN for none) and height
//   stop(): void                    ends the thread
// A line is a job notification when it starts with {"jsonrpc"; its height is the digits after the
// line's last "height":, where the pool writes it. Other lines are only counted.
#include <napi.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "linux_only.h"

#ifdef __linux__
#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#endif

namespace {

#ifdef __linux__
constexpr uint64_t kWakeTag = std::numeric_limits<uint64_t>::max();
constexpr int kEventsPerWait = 512;
constexpr size_t kReadBytes = 64 * 1024;
constexpr long kPauseAfterBatchNs = 1000 * 1000;
const char kNotificationStart[] = "{\"jsonrpc\"";
const char kHeightKey[] = "\"height\":";

struct Slot {
  /** The socket read for this slot; -1 while none is (never watched, unwatched, or closed). */
  int fd = -1;
  double arrivalMs = NAN;
  double height = NAN;
  /** Bytes of a line not yet ended by a newline (a line split between two reads). */
  std::string partial;
};

double WallClockMs() {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

double HeightOf(const char* line, size_t length) {
  const size_t keyLength = sizeof(kHeightKey) - 1;
  if (length < keyLength) return NAN;
  for (size_t at = length - keyLength + 1; at-- > 0;) {
    if (std::memcmp(line + at, kHeightKey, keyLength) != 0) continue;
    double height = 0;
    size_t digits = 0;
    for (size_t i = at + keyLength; i < length && line[i] >= '0' && line[i] <= '9'; i++, digits++) {
      height = height * 10 + (line[i] - '0');
    }
    return digits == 0 ? NAN : height;
  }
  return NAN;
}

class JobReader {
 public:
  bool Start() {
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    wake_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (epoll_ < 0 || wake_ < 0) return false;
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = kWakeTag;
    if (epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &event) != 0) return false;
    thread_ = std::thread([this] { Run(); });
    return true;
  }

  int Watch(size_t slot, int fd) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (slot >= slots_.size()) slots_.resize(slot + 1);
    Slot& entry = slots_[slot];
    if (entry.fd >= 0) return EEXIST;
    epoll_event event{};
    event.events = EPOLLIN | EPOLLRDHUP;
    event.data.u64 = slot;
    if (epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &event) != 0) return errno;
    entry.fd = fd;
    entry.partial.clear();
    return 0;
  }

  void Unwatch(size_t slot) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (slot < slots_.size()) Forget(slots_[slot]);
  }

  void Arm(double height) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Slot& slot : slots_) {
      slot.arrivalMs = NAN;
      slot.height = NAN;
    }
    armedHeight_ = height;
    armed_ = true;
    lateEarlier_ = 0;
    received_.store(0, std::memory_order_relaxed);
  }

  uint32_t Received() const { return received_.load(std::memory_order_relaxed); }

  void Collect(double* atMs, double* heights, size_t count, uint32_t* lateEarlier, uint32_t* otherLines,
               uint32_t* closed) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (size_t i = 0; i < count; i++) {
      atMs[i] = i < slots_.size() ? slots_[i].arrivalMs : NAN;
      heights[i] = i < slots_.size() ? slots_[i].height : NAN;
    }
    armed_ = false;
    *lateEarlier = lateEarlier_;
    *otherLines = otherLines_;
    *closed = closed_;
  }

  void Stop() {
    if (!thread_.joinable()) return;
    stopping_.store(true);
    const uint64_t one = 1;
    if (write(wake_, &one, sizeof one) < 0) {
      // The thread still sees stopping_ on its next wake; nothing else to do.
    }
    thread_.join();
    close(epoll_);
    close(wake_);
  }

 private:
  void Run() {
    std::vector<epoll_event> events(kEventsPerWait);
    std::vector<char> buffer(kReadBytes);
    while (!stopping_.load()) {
      const int ready = epoll_wait(epoll_, events.data(), kEventsPerWait, -1);
      if (ready < 0) {
        if (errno == EINTR) continue;
        return;
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        for (int i = 0; i < ready; i++) {
          if (events[i].data.u64 == kWakeTag) continue;
          Slot& slot = slots_[events[i].data.u64];
          // Unwatched after epoll_wait returned: its descriptor may already be another socket's.
          if (slot.fd < 0) continue;
          ReadSlot(slot, buffer.data(), buffer.size());
        }
      }
      const timespec pause{0, kPauseAfterBatchNs};
      nanosleep(&pause, nullptr);
    }
  }

  void ReadSlot(Slot& slot, char* buffer, size_t capacity) {
    for (;;) {
      const ssize_t got = recv(slot.fd, buffer, capacity, MSG_DONTWAIT);
      if (got > 0) {
        OnBytes(slot, buffer, static_cast<size_t>(got), WallClockMs());
        return;  // level-triggered: what is left is reported again
      }
      if (got < 0 && errno == EINTR) continue;
      if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      closed_++;  // end of stream or an error: the pool closed this miner
      Forget(slot);
      return;
    }
  }

  void OnBytes(Slot& slot, const char* bytes, size_t length, double nowMs) {
    size_t start = 0;
    for (size_t i = 0; i < length; i++) {
      if (bytes[i] != '\n') continue;
      if (slot.partial.empty()) {
        OnLine(slot, bytes + start, i - start, nowMs);
      } else {
        slot.partial.append(bytes + start, i - start);
        OnLine(slot, slot.partial.data(), slot.partial.size(), nowMs);
        slot.partial.clear();
      }
      start = i + 1;
    }
    if (start < length) slot.partial.append(bytes + start, length - start);
  }

  void OnLine(Slot& slot, const char* line, size_t length, double nowMs) {
    const size_t startLength = sizeof(kNotificationStart) - 1;
    if (length < startLength || std::memcmp(line, kNotificationStart, startLength) != 0) {
      otherLines_++;
      return;
    }
    if (!armed_ || !std::isnan(slot.arrivalMs)) return;
    const double height = HeightOf(line, length);
    if (!(height >= armedHeight_)) {
      lateEarlier_++;
      return;
    }
    slot.arrivalMs = nowMs;
    slot.height = height;
    received_.fetch_add(1, std::memory_order_relaxed);
  }

  void Forget(Slot& slot) {
    if (slot.fd < 0) return;
    epoll_ctl(epoll_, EPOLL_CTL_DEL, slot.fd, nullptr);
    slot.fd = -1;
    slot.partial.clear();
  }

  int epoll_ = -1;
  int wake_ = -1;
  std::thread thread_;
  std::mutex mutex_;
  std::vector<Slot> slots_;
  std::atomic<bool> stopping_{false};
  std::atomic<uint32_t> received_{0};
  bool armed_ = false;
  double armedHeight_ = 0;
  uint32_t lateEarlier_ = 0;
  uint32_t otherLines_ = 0;
  uint32_t closed_ = 0;
};

JobReader* reader = nullptr;

bool ReaderReady(Napi::Env env) {
  if (reader != nullptr) return true;
  Napi::Error::New(env, "job reader not started").ThrowAsJavaScriptException();
  return false;
}

constexpr double kMaxSlots = 16777216;

bool SlotArgument(const Napi::CallbackInfo& info, size_t index, size_t* slot) {
  const double value = info.Length() > index && info[index].IsNumber() ? info[index].As<Napi::Number>().DoubleValue() : -1;
  if (!(value >= 0 && value < kMaxSlots) || value != std::floor(value)) {
    Napi::RangeError::New(info.Env(), "slot must be an integer below 2^24")
        .ThrowAsJavaScriptException();
    return false;
  }
  *slot = static_cast<size_t>(value);
  return true;
}
#endif

#ifdef __linux__
Napi::Value Start(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (reader != nullptr) {
    Napi::Error::New(env, "job reader already started").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto* started = new JobReader();
  if (!started->Start()) {
    Napi::Error::New(env, std::string("job reader: epoll or eventfd failed: ") + std::strerror(errno))
        .ThrowAsJavaScriptException();
    delete started;
    return env.Undefined();
  }
  reader = started;
  return env.Undefined();
}

Napi::Value Watch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t slot = 0;
  if (!ReaderReady(env) || !SlotArgument(info, 0, &slot)) return env.Undefined();
  const double fd = info.Length() > 1 && info[1].IsNumber() ? info[1].As<Napi::Number>().DoubleValue() : -1;
  if (!(fd >= 0 && fd <= 2147483647) || fd != std::floor(fd)) {
    Napi::RangeError::New(env, "watch(slot, fd): fd must be a descriptor").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const int error = reader->Watch(slot, static_cast<int>(fd));
  if (error != 0) {
    Napi::Error::New(env, std::string("watch: ") + std::strerror(error)).ThrowAsJavaScriptException();
  }
  return env.Undefined();
}

Napi::Value Unwatch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  size_t slot = 0;
  if (ReaderReady(env) && SlotArgument(info, 0, &slot)) reader->Unwatch(slot);
  return env.Undefined();
}

Napi::Value Arm(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!ReaderReady(env)) return env.Undefined();
  if (info.Length() < 1 || !info[0].IsNumber()) {
    Napi::TypeError::New(env, "arm(height): height must be a number").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  reader->Arm(info[0].As<Napi::Number>().DoubleValue());
  return env.Undefined();
}

Napi::Value Received(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!ReaderReady(env)) return env.Undefined();
  return Napi::Number::New(env, reader->Received());
}

Napi::Value Collect(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!ReaderReady(env)) return env.Undefined();
  const auto isFloat64 = [](const Napi::Value& value) {
    return value.IsTypedArray() && value.As<Napi::TypedArray>().TypedArrayType() == napi_float64_array;
  };
  if (info.Length() < 2 || !isFloat64(info[0]) || !isFloat64(info[1])) {
    Napi::TypeError::New(env, "collect(atMs: Float64Array, heights: Float64Array)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Float64Array atMs = info[0].As<Napi::Float64Array>();
  Napi::Float64Array heights = info[1].As<Napi::Float64Array>();
  const size_t count = std::min(atMs.ElementLength(), heights.ElementLength());
  uint32_t lateEarlier = 0;
  uint32_t otherLines = 0;
  uint32_t closed = 0;
  reader->Collect(atMs.Data(), heights.Data(), count, &lateEarlier, &otherLines, &closed);
  Napi::Object result = Napi::Object::New(env);
  result.Set("lateEarlier", Napi::Number::New(env, lateEarlier));
  result.Set("otherLines", Napi::Number::New(env, otherLines));
  result.Set("closed", Napi::Number::New(env, closed));
  return result;
}

Napi::Value Stop(const Napi::CallbackInfo& info) {
  if (reader != nullptr) {
    reader->Stop();
    delete reader;
    reader = nullptr;
  }
  return info.Env().Undefined();
}
#endif

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("supported", Napi::Function::New(env, fuego::SupportedOnLinux, "supported"));
#ifdef __linux__
  exports.Set("start", Napi::Function::New(env, Start, "start"));
  exports.Set("watch", Napi::Function::New(env, Watch, "watch"));
  exports.Set("unwatch", Napi::Function::New(env, Unwatch, "unwatch"));
  exports.Set("arm", Napi::Function::New(env, Arm, "arm"));
  exports.Set("received", Napi::Function::New(env, Received, "received"));
  exports.Set("collect", Napi::Function::New(env, Collect, "collect"));
  exports.Set("stop", Napi::Function::New(env, Stop, "stop"));
#endif
  return exports;
}

}  // namespace

NODE_API_MODULE(fuego_bench_job_reader, Init)
