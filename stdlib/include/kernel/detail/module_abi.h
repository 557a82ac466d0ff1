// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* The descriptor through which a compiled translation unit hands its GPU code to the
 * runtime: the one definition of the module ABI. The pass (passes/EmbedDeviceImages.cpp)
 * builds these structs in the host module from the field tables in passes/ModuleAbiTypes.h,
 * which are derived from the declarations below and checked against them at compile time;
 * the runtime (runtime/registry/) reads them. Changing a layout means bumping the version,
 * which the runtime checks. Plain C so that the layout is the platform ABI's. */
#ifndef KERNEL_DETAIL_MODULE_ABI_H
#define KERNEL_DETAIL_MODULE_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KERNEL_MODULE_ABI_VERSION 5u

/* What an entry is, and so how the runtime launches it: X(NAME, value, "name"). The name
 * is what annotations, kernel_info::kind and messages say, and the entry template is
 * kernel::detail::<name>_kernel: instantiated by the plugin as <name>_kernel<&f> for an
 * annotated function f, or (fused kinds) by a lazy expression's materialisation as
 * <name>_kernel<E>, or (algorithm) by a library algorithm's device path as
 * algorithm_kernel<E>; the plugin then marks those as entries. */
#define KERNEL_ENTRY_KINDS(X)                                                                                          \
  X(UFUNC, 1, "ufunc")                                                                                                 \
  X(JIT, 2, "jit")                                                                                                     \
  X(GUFUNC, 3, "gufunc")                                                                                               \
  X(REDUCE, 4, "reduce")                                                                                               \
  X(FUSED, 5, "fused")                                                                                                 \
  X(FUSED_REDUCE, 6, "fused_reduce")                                                                                   \
  X(ALGORITHM, 7, "algorithm")

#define KERNEL_ENTRY_KIND_ENUMERATOR(NAME, VALUE, TEXT) KERNEL_ENTRY_##NAME = VALUE,
enum kernel_entry_kind { KERNEL_ENTRY_KINDS(KERNEL_ENTRY_KIND_ENUMERATOR) };
#undef KERNEL_ENTRY_KIND_ENUMERATOR

/* "ufunc", "jit", ...; NULL for a value that is no entry kind. */
static inline const char *kernel_entry_kind_name(uint32_t kind) {
#define KERNEL_ENTRY_KIND_CASE(NAME, VALUE, TEXT)                                                                      \
  case VALUE: return TEXT;
  switch (kind) { KERNEL_ENTRY_KINDS(KERNEL_ENTRY_KIND_CASE) }
#undef KERNEL_ENTRY_KIND_CASE
  return 0;
}

/* The kind named `name` (a NUL-terminated string); 0 when none is. */
static inline uint32_t kernel_entry_kind_from_name(const char *name) {
  for (uint32_t kind = 1;; ++kind) {
    const char *candidate = kernel_entry_kind_name(kind);
    if (!candidate) return 0;
    const char *a = candidate, *b = name;
    while (*a && *a == *b) ++a, ++b;
    if (*a == *b) return kind;
  }
}

/* The PTX of one translation unit for one architecture. */
struct kernel_image {
  const char *arch; /* "sm_75" */
  const char *ptx;  /* NUL-terminated */
  uint64_t size;    /* bytes, without the NUL */
};

/* One kernel of the module. */
struct kernel_entry {
  const void *host_key; /* address of the entry's host copy: how the runtime finds it */
  /* The host copy instrumented for the simulator's race checks, void(const void *params);
   * null when the plugin made none. */
  const void *simulator_entry;
  const char *symbol;    /* the .entry name in the PTX */
  const char *name;      /* the annotated function, as the user wrote it */
  const char *signature; /* Numba-style, e.g. "float32(float32, float32)" */
  const char *location;  /* "file:line" of the annotated function */
  /* The order the signature declares for each parameter, one character each: 'C' for
   * "float32[:, ::1]" (and "float32[::1]"), 'F' for "float32[::1, :]", 'A' for any other (an
   * array of any strides, or a scalar), also for a kernel without a signature (its C++
   * types declare no order); "" for the library's entries. A launch copies host arrays in
   * that order and refuses device arrays that are not in it. */
  const char *array_orders;
  uint32_t kind;       /* enum kernel_entry_kind */
  uint32_t param_size; /* bytes of the kernel's one parameter block */
  uint32_t param_align;
  /* Bytes of stack each simulated thread needs at least (its local arrays), saturated at
   * UINT32_MAX; 0 when not known. */
  uint32_t simulator_min_stack;
  /* Bytes of static shared memory (shared_array) one block of the kernel takes, as compiled
   * for the GPU: the simulator checks a launch's dynamic shared memory against the rest. */
  uint32_t static_shared;
  uint32_t reserved;
};

/* Device code the user asked to link ([[kernel::link]], -fplugin-arg-kernel-link), embedded. */
struct kernel_link_input {
  const char *name; /* as the user wrote it */
  const char *kind; /* a format's name in kernel/detail/link_inputs.h: "object", "ptx", ... */
  const char *hash; /* content hash */
  const void *data;
  uint64_t size;
};

/* A CUDA-C device function the module calls ([[kernel::declare_device]]). */
struct kernel_external {
  const char *symbol;    /* the linker name */
  const char *signature; /* "int bar(int, int)", as declared in C++ */
  const char *abi;       /* "c" or "numba" */
  const char *location;  /* "foo.cpp:12" */
};

struct kernel_module {
  uint32_t abi_version; /* KERNEL_MODULE_ABI_VERSION */
  uint32_t num_images;
  uint32_t num_entries;
  uint32_t reserved;
  const char *hash; /* hex content hash of the images, entries and linked code: the module's identity */
  const struct kernel_image *images;
  const struct kernel_entry *entries;
  uint32_t num_link_inputs;
  uint32_t num_externals;
  const struct kernel_link_input *link_inputs;
  /* A Numba-convention function that fails records (index + 1) << 32 | status in the
   * device global __kernel_device_status. */
  const struct kernel_external *externals;
};

/* Called by every translation unit compiled with the plugin, before main. The pass
 * references it weakly, so a program that does not link the runtime still links. */
void __kernel_register_module(const struct kernel_module *module);

/* Called from a destructor of the same translation units (when a shared library is unloaded,
 * or at exit): the module's entries are then no longer found. Referenced weakly too. */
void __kernel_unregister_module(const struct kernel_module *module);

#ifdef __cplusplus
}
#endif

#endif
