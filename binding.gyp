# Native cn/upx2 hasher (native/, see native/addon.cc). Output: build/Release/fuego_cn_upx2.node.
# Second target: the listening socket filter (native/socket_filter.cc) -> fuego_socket_filter.node.
# Third: batched line writes to miners' sockets (native/socket_write.cc) -> fuego_socket_write.node.
# Fourth, for the connections benchmark only (not the pool): its load generators' job reader
# (native/bench_job_reader.cc) -> fuego_bench_job_reader.node.
# Optimisation: -O3 only. Never -Ofast / -ffast-math: a public upx2 addon built that way
# rejected about 20% of valid shares. The AES-NI code is enabled per file by a target pragma in
# native/cn_aesni.cc, so no -maes here and the binary still runs on CPUs without AES-NI.
# Thread-safe statics stay on (Node turns them off on macOS): the CPUID flag and the JH initial
# state are function-local statics first touched from whichever worker thread hashes first.
# NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS: a worker terminated in the middle of a hash must not
# turn "cannot throw while the environment shuts down" into a fatal process abort.
{
  "targets": [
    {
      "target_name": "fuego_cn_upx2",
      "sources": [
        "native/addon.cc",
        "native/aes.cc",
        "native/blake256.cc",
        "native/cn_aesni.cc",
        "native/cn_portable.cc",
        "native/cn_slow_hash.cc",
        "native/final_hashes.cc",
        "native/groestl256.cc",
        "native/hash_chain.cc",
        "native/jh256.cc",
        "native/keccak.cc",
        "native/skein512_256.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS"],
      "cflags!": ["-Ofast", "-ffast-math", "-O0", "-O1", "-O2"],
      "cflags_cc!": ["-Ofast", "-ffast-math", "-O0", "-O1", "-O2"],
      "cflags": ["-O3", "-fno-fast-math"],
      "cflags_cc": ["-O3", "-fno-fast-math", "-std=gnu++17", "-fthreadsafe-statics"],
      "xcode_settings": {
        "GCC_OPTIMIZATION_LEVEL": "3",
        "GCC_FAST_MATH": "NO",
        "GCC_THREADSAFE_STATICS": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "gnu++17",
        "MACOSX_DEPLOYMENT_TARGET": "10.15"
      },
      "msvs_settings": {
        "VCCLCompilerTool": { "Optimization": 2, "FloatingPointModel": 0, "AdditionalOptions": ["/std:c++17"] }
      }
    },
    {
      "target_name": "fuego_socket_filter",
      "sources": ["native/socket_filter.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
      "cflags_cc": ["-std=gnu++17"],
      "xcode_settings": { "CLANG_CXX_LANGUAGE_STANDARD": "gnu++17", "MACOSX_DEPLOYMENT_TARGET": "10.15" },
      "msvs_settings": { "VCCLCompilerTool": { "AdditionalOptions": ["/std:c++17"] } }
    },
    {
      "target_name": "fuego_socket_write",
      "sources": ["native/socket_write.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
      "cflags_cc": ["-O2", "-std=gnu++17"],
      "xcode_settings": { "CLANG_CXX_LANGUAGE_STANDARD": "gnu++17", "MACOSX_DEPLOYMENT_TARGET": "10.15" },
      "msvs_settings": { "VCCLCompilerTool": { "AdditionalOptions": ["/std:c++17"] } }
    },
    {
      "target_name": "fuego_bench_job_reader",
      "sources": ["native/bench_job_reader.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS"],
      "cflags_cc": ["-O2", "-std=gnu++17"],
      "xcode_settings": { "CLANG_CXX_LANGUAGE_STANDARD": "gnu++17", "MACOSX_DEPLOYMENT_TARGET": "10.15" },
      "msvs_settings": { "VCCLCompilerTool": { "AdditionalOptions": ["/std:c++17"] } }
    }
  ]
}
