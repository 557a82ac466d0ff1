# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Offline stand-in for rules_cc: Bazel 4.2.3's own tools load @rules_cc//cc:defs.bzl, and
# Debian's bazel-rules-cc 0.0.4 does not load under 4.2.3. The native rules are what the real
# rules_cc re-exports for this Bazel version, so forwarding them changes nothing.
cc_binary = native.cc_binary
cc_import = native.cc_import
cc_library = native.cc_library
cc_proto_library = native.cc_proto_library
cc_test = native.cc_test
cc_toolchain = native.cc_toolchain
cc_toolchain_suite = native.cc_toolchain_suite
objc_library = native.objc_library
