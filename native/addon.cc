// Node-API binding for the cn/upx2 hasher (node-addon-api, C++ exceptions disabled).
// Holds no per-process mutable state (the scratchpad is thread_local, the CPUID result a
// read-only static), so it can be loaded in any number of worker_threads at once.
//
// Exports:
//   hash(input: Uint8Array, portable?: boolean): Buffer                 cn/upx2, 32 bytes
//   hashInto(input: Uint8Array, output: Uint8Array, portable?: boolean): void  (output >= 32 B)
//   hashPair(first: Uint8Array, second: Uint8Array, portable?: boolean): Buffer  both, 64 bytes
//   hashBatch(inputs: Uint8Array[], portable?: boolean): Buffer[]             (hashed in pairs)
//   slowHash(input, variant: 0|1|2, light: boolean, portable?: boolean): Buffer  (other CN forms)
//   hasAesNi(): boolean
//   finalHash(index: 0..3, state: Uint8Array /* 200 bytes */): Buffer  (test hook)
//   fastHash(input: Uint8Array): Buffer                                 (cn_fast_hash, Keccak-256)
//   fastHashInto(input: Uint8Array, output: Uint8Array, offset: number): void  (32 bytes at offset)
//   fastHashChain(work: Uint8Array, steps: Uint32Array, output: Uint8Array, from: number): void
//     (hash_chain.h over `work` in place, then work[from, from + output.length) copied to output)
#include <napi.h>

#include <cstring>
#include <string>
#include <vector>

#include "cn_slow_hash.h"
#include "final_hashes.h"
#include "hash_chain.h"
#include "keccak.h"

namespace {

constexpr int kUpx2Variant = 2;
constexpr bool kUpx2Light = true;

bool IsUint8Array(const Napi::Value& value) {
  return value.IsTypedArray() && value.As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array;
}

// Reads an optional boolean argument; sets a pending TypeError and returns false on a bad type.
bool ReadOptionalBool(const Napi::CallbackInfo& info, size_t index, const char* name, bool* out) {
  *out = false;
  if (info.Length() <= index || info[index].IsUndefined()) return true;
  if (!info[index].IsBoolean()) {
    Napi::TypeError::New(info.Env(), std::string(name) + " must be a boolean").ThrowAsJavaScriptException();
    return false;
  }
  *out = info[index].As<Napi::Boolean>().Value();
  return true;
}

bool ReadBytes(const Napi::CallbackInfo& info, size_t index, const char* name, Napi::Uint8Array* out) {
  if (info.Length() <= index || !IsUint8Array(info[index])) {
    Napi::TypeError::New(info.Env(), std::string(name) + " must be a Uint8Array or Buffer")
        .ThrowAsJavaScriptException();
    return false;
  }
  *out = info[index].As<Napi::Uint8Array>();
  return true;
}

// Runs the slow hash and turns a failure status into a pending JS error.
bool RunSlowHash(Napi::Env env, const Napi::Uint8Array& input, uint8_t out[32], int variant, bool light,
                 bool portable) {
  switch (fuego::cn_slow_hash(input.Data(), input.ByteLength(), out, variant, light, !portable)) {
    case fuego::CnStatus::kOk:
      return true;
    case fuego::CnStatus::kOutOfMemory:
      Napi::Error::New(env, "cannot allocate the CryptoNight scratchpad").ThrowAsJavaScriptException();
      return false;
    case fuego::CnStatus::kInputTooShort:
      Napi::RangeError::New(env, "variant 1 needs an input of at least 43 bytes").ThrowAsJavaScriptException();
      return false;
    case fuego::CnStatus::kBadVariant:
    default:
      Napi::RangeError::New(env, "variant must be 0, 1 or 2").ThrowAsJavaScriptException();
      return false;
  }
}

Napi::Value Hash(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array input;
  bool portable;
  if (!ReadBytes(info, 0, "input", &input) || !ReadOptionalBool(info, 1, "portable", &portable)) return env.Null();
  uint8_t out[32];
  if (!RunSlowHash(env, input, out, kUpx2Variant, kUpx2Light, portable)) return env.Null();
  return Napi::Buffer<uint8_t>::Copy(env, out, sizeof out);
}

Napi::Value HashInto(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array input;
  Napi::Uint8Array output;
  bool portable;
  if (!ReadBytes(info, 0, "input", &input) || !ReadBytes(info, 1, "output", &output) ||
      !ReadOptionalBool(info, 2, "portable", &portable)) {
    return env.Null();
  }
  if (output.ByteLength() < 32) {
    Napi::RangeError::New(env, "output must hold at least 32 bytes").ThrowAsJavaScriptException();
    return env.Null();
  }
  uint8_t out[32];  // separate buffer: input and output may overlap
  if (!RunSlowHash(env, input, out, kUpx2Variant, kUpx2Light, portable)) return env.Null();
  std::memcpy(output.Data(), out, sizeof out);
  return env.Undefined();
}

// Hashes two cn/upx2 inputs with interleaved main loops (cn_upx2_pair); false with a pending error.
bool RunPair(Napi::Env env, const Napi::Uint8Array& first, const Napi::Uint8Array& second, uint8_t out[64],
             bool portable) {
  const uint8_t* const inputs[2] = {first.Data(), second.Data()};
  const size_t lengths[2] = {first.ByteLength(), second.ByteLength()};
  uint8_t* const outs[2] = {out, out + 32};
  if (fuego::cn_upx2_pair(inputs, lengths, outs, !portable) == fuego::CnStatus::kOk) return true;
  Napi::Error::New(env, "cannot allocate the CryptoNight scratchpad").ThrowAsJavaScriptException();
  return false;
}

Napi::Value HashPair(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array first;
  Napi::Uint8Array second;
  bool portable;
  if (!ReadBytes(info, 0, "first", &first) || !ReadBytes(info, 1, "second", &second) ||
      !ReadOptionalBool(info, 2, "portable", &portable)) {
    return env.Null();
  }
  uint8_t out[64];
  if (!RunPair(env, first, second, out, portable)) return env.Null();
  return Napi::Buffer<uint8_t>::Copy(env, out, sizeof out);
}

Napi::Value HashBatch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsArray()) {
    Napi::TypeError::New(env, "inputs must be an array of Uint8Array").ThrowAsJavaScriptException();
    return env.Null();
  }
  bool portable;
  if (!ReadOptionalBool(info, 1, "portable", &portable)) return env.Null();
  Napi::Array inputs = info[0].As<Napi::Array>();
  const uint32_t count = inputs.Length();
  Napi::Array results = Napi::Array::New(env, count);
  std::vector<Napi::Uint8Array> items;
  items.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    Napi::Value item = inputs.Get(i);
    if (env.IsExceptionPending()) return env.Null();
    if (!IsUint8Array(item)) {
      Napi::TypeError::New(env, "inputs[" + std::to_string(i) + "] must be a Uint8Array or Buffer")
          .ThrowAsJavaScriptException();
      return env.Null();
    }
    items.push_back(item.As<Napi::Uint8Array>());
  }
  uint32_t i = 0;
  for (; i + 1 < count; i += 2) {
    uint8_t out[64];
    if (!RunPair(env, items[i], items[i + 1], out, portable)) return env.Null();
    results.Set(i, Napi::Buffer<uint8_t>::Copy(env, out, 32));
    results.Set(i + 1, Napi::Buffer<uint8_t>::Copy(env, out + 32, 32));
  }
  if (i < count) {
    uint8_t out[32];
    if (!RunSlowHash(env, items[i], out, kUpx2Variant, kUpx2Light, portable)) return env.Null();
    results.Set(i, Napi::Buffer<uint8_t>::Copy(env, out, sizeof out));
  }
  return results;
}

Napi::Value SlowHash(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array input;
  if (!ReadBytes(info, 0, "input", &input)) return env.Null();
  if (info.Length() < 3 || !info[1].IsNumber() || !info[2].IsBoolean()) {
    Napi::TypeError::New(env, "slowHash(input, variant: number, light: boolean, portable?: boolean)")
        .ThrowAsJavaScriptException();
    return env.Null();
  }
  const double variant = info[1].As<Napi::Number>().DoubleValue();
  if (variant != 0 && variant != 1 && variant != 2) {
    Napi::RangeError::New(env, "variant must be 0, 1 or 2").ThrowAsJavaScriptException();
    return env.Null();
  }
  bool portable;
  if (!ReadOptionalBool(info, 3, "portable", &portable)) return env.Null();
  uint8_t out[32];
  if (!RunSlowHash(env, input, out, static_cast<int>(variant), info[2].As<Napi::Boolean>().Value(), portable)) {
    return env.Null();
  }
  return Napi::Buffer<uint8_t>::Copy(env, out, sizeof out);
}

Napi::Value FinalHash(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) {
    Napi::TypeError::New(env, "index must be a number").ThrowAsJavaScriptException();
    return env.Null();
  }
  const double index = info[0].As<Napi::Number>().DoubleValue();
  if (!(index == 0 || index == 1 || index == 2 || index == 3)) {
    Napi::RangeError::New(env, "index must be 0, 1, 2 or 3").ThrowAsJavaScriptException();
    return env.Null();
  }
  Napi::Uint8Array state;
  if (!ReadBytes(info, 1, "state", &state)) return env.Null();
  if (state.ByteLength() != 200) {
    Napi::RangeError::New(env, "state must be exactly 200 bytes").ThrowAsJavaScriptException();
    return env.Null();
  }
  uint8_t out[32];
  fuego::final_hash(static_cast<unsigned>(index), state.Data(), out);
  return Napi::Buffer<uint8_t>::Copy(env, out, sizeof out);
}

Napi::Value FastHash(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array input;
  if (!ReadBytes(info, 0, "input", &input)) return env.Null();
  uint8_t state[200];
  fuego::keccak_state(input.Data(), input.ByteLength(), state);
  return Napi::Buffer<uint8_t>::Copy(env, state, 32);
}

// cn_fast_hash straight into a caller's array: job building hashes into its blobs without
// allocating a Buffer per hash.
Napi::Value FastHashInto(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array input;
  Napi::Uint8Array output;
  if (!ReadBytes(info, 0, "input", &input) || !ReadBytes(info, 1, "output", &output)) return env.Null();
  if (info.Length() < 3 || !info[2].IsNumber()) {
    Napi::TypeError::New(env, "offset must be a number").ThrowAsJavaScriptException();
    return env.Null();
  }
  const double offset = info[2].As<Napi::Number>().DoubleValue();
  if (!(offset >= 0) || offset != static_cast<double>(static_cast<size_t>(offset)) ||
      offset + 32 > static_cast<double>(output.ByteLength())) {
    Napi::RangeError::New(env, "output must hold 32 bytes at offset").ThrowAsJavaScriptException();
    return env.Null();
  }
  uint8_t state[200];  // separate buffer: input and output may overlap
  fuego::keccak_state(input.Data(), input.ByteLength(), state);
  std::memcpy(output.Data() + static_cast<size_t>(offset), state, 32);
  return env.Undefined();
}

// The per-miner hashes of a job in one call (hash_chain.h), then the job's blob copied out of the
// work buffer: the job push runs this once per miner on every new template.
Napi::Value FastHashChain(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Uint8Array work;
  Napi::Uint8Array output;
  if (!ReadBytes(info, 0, "work", &work) || !ReadBytes(info, 2, "output", &output)) return env.Null();
  if (!info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array) {
    Napi::TypeError::New(env, "steps must be a Uint32Array").ThrowAsJavaScriptException();
    return env.Null();
  }
  if (info.Length() < 4 || !info[3].IsNumber()) {
    Napi::TypeError::New(env, "from must be a number").ThrowAsJavaScriptException();
    return env.Null();
  }
  const Napi::Uint32Array steps = info[1].As<Napi::Uint32Array>();
  const double from = info[3].As<Napi::Number>().DoubleValue();
  if (!(from >= 0) || from != static_cast<double>(static_cast<size_t>(from)) ||
      from + static_cast<double>(output.ByteLength()) > static_cast<double>(work.ByteLength())) {
    Napi::RangeError::New(env, "work must hold output.length bytes at from").ThrowAsJavaScriptException();
    return env.Null();
  }
  if (!fuego::hash_chain(work.Data(), work.ByteLength(), steps.Data(), steps.ElementLength())) {
    Napi::RangeError::New(env, "steps do not fit the work buffer").ThrowAsJavaScriptException();
    return env.Null();
  }
  std::memmove(output.Data(), work.Data() + static_cast<size_t>(from), output.ByteLength());
  return env.Undefined();
}

Napi::Value HasAesNi(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), fuego::cpu_has_aesni());
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("hash", Napi::Function::New(env, Hash, "hash"));
  exports.Set("hashInto", Napi::Function::New(env, HashInto, "hashInto"));
  exports.Set("hashPair", Napi::Function::New(env, HashPair, "hashPair"));
  exports.Set("hashBatch", Napi::Function::New(env, HashBatch, "hashBatch"));
  exports.Set("slowHash", Napi::Function::New(env, SlowHash, "slowHash"));
  exports.Set("finalHash", Napi::Function::New(env, FinalHash, "finalHash"));
  exports.Set("fastHash", Napi::Function::New(env, FastHash, "fastHash"));
  exports.Set("fastHashInto", Napi::Function::New(env, FastHashInto, "fastHashInto"));
  exports.Set("fastHashChain", Napi::Function::New(env, FastHashChain, "fastHashChain"));
  exports.Set("hasAesNi", Napi::Function::New(env, HasAesNi, "hasAesNi"));
  return exports;
}

}  // namespace

NODE_API_MODULE(fuego_cn_upx2, Init)
