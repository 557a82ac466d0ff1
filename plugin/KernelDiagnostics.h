// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- KernelDiagnostics.h - The plugin's diagnostics -----------*- C++ -*-===//
//
// Every message the plugin reports, in one place so that wording stays consistent and the
// -verify tests have one list to match against.
//
//===----------------------------------------------------------------------===//

#ifndef KERNEL_PLUGIN_KERNELDIAGNOSTICS_H
#define KERNEL_PLUGIN_KERNELDIAGNOSTICS_H

#include "clang/Basic/Diagnostic.h"
#include "clang/Sema/Sema.h"

namespace kernel {
namespace plugin {
namespace diag {

/// The custom diagnostic ID for `Format` (clang caches IDs by level and text).
template <unsigned N>
unsigned id(clang::DiagnosticsEngine &D, clang::DiagnosticsEngine::Level L,
            const char (&Format)[N]) {
  return D.getCustomDiagID(L, Format);
}

/// Reports the error `Format` at `Loc`.
template <unsigned N>
clang::Sema::SemaDiagnosticBuilder error(clang::Sema &S, clang::SourceLocation Loc,
                                         const char (&Format)[N]) {
  return S.Diag(Loc, id(S.getDiagnostics(), clang::DiagnosticsEngine::Error, Format));
}

// Attribute use.
inline constexpr const char SignatureNotString[] =
    "%0 arguments are signature strings such as \"float32(float32, float32)\"";
inline constexpr const char SignatureNotOrdinaryString[] =
    "%0 signatures must be ordinary (narrow) string literals";
inline constexpr const char MalformedSignature[] = "malformed %0 signature: %1";
inline constexpr const char NotAFunction[] = "%0 only applies to functions";
inline constexpr const char NonStaticMember[] =
    "%0 applies to free functions and static member functions, not to the non-static member "
    "function %1";
inline constexpr const char VariadicFunction[] = "%0 cannot apply to the variadic function %1";
inline constexpr const char InClassTemplate[] =
    "%0 on a member of a class template is not supported; make it a function template with "
    "signatures";
inline constexpr const char ConflictingAttributes[] =
    "%0 conflicts with the %1 attribute already on %2";
inline constexpr const char RedeclaredSignatures[] =
    "%0 on this declaration of %1 says '%2', but an earlier declaration says '%3'; write the "
    "attribute once, or repeat it exactly";
inline constexpr const char NoteEarlierAttribute[] = "the earlier %0 attribute is here";
inline constexpr const char SignatureMismatch[] = "signature '%0' does not match %1: %2";
inline constexpr const char VectorizeNeedsScalars[] =
    "kernel::vectorize signatures take and return scalars; '%0' is an array (use "
    "kernel::guvectorize for functions of arrays)";
inline constexpr const char VectorizeNeedsResult[] =
    "kernel::vectorize functions return their result; the signature '%0' returns void";
inline constexpr const char JitReturnsVoid[] =
    "kernel::jit kernels return void and write results through array arguments; the "
    "signature '%0' returns %1";
inline constexpr const char OnMain[] = "%0 cannot apply to 'main'";
inline constexpr const char VectorizeNeedsArguments[] =
    "kernel::vectorize functions take at least one argument, which the ufunc maps element by "
    "element; %0 takes none";
inline constexpr const char VectorizeReturnsVoid[] =
    "kernel::vectorize functions return their result; %0 returns void (use kernel::guvectorize "
    "or kernel::jit to write results through arguments)";
inline constexpr const char ReduceBool[] =
    "kernel::reduce cannot combine bool values (%0 returns bool); reduce integers instead";
inline constexpr const char ReduceBoolSignature[] =
    "kernel::reduce cannot combine bool values (signature '%0'); reduce integers instead";
inline constexpr const char JitReturnsValue[] =
    "kernel::jit kernels return void and write results through array arguments; %0 returns %1";
inline constexpr const char JitParamByReference[] =
    "kernel::jit kernel arguments are copied to the GPU, so parameter %0 of %1 cannot be the "
    "non-const reference %2; take it by value (an array_view to write through)";
inline constexpr const char JitParamNotCopyable[] =
    "kernel::jit kernel arguments are copied to the GPU byte for byte, so parameter %0 of %1 "
    "cannot have the type %2, which is not trivially copyable; pass its data as an array_view";
inline constexpr const char DeletedFunction[] = "%0 cannot apply to the deleted function %1";
inline constexpr const char EntryNotInstantiated[] =
    "cannot instantiate kernel::detail::%0 for %1 from <kernel/kernel.h>: %2 (is the header "
    "from another version of the toolkit?)";
inline constexpr const char CannotDeriveSignature[] =
    "%0 %1 needs a signature string: it cannot be derived from its C++ types (%2)";
inline constexpr const char TemplateNeedsSignature[] =
    "%0 on the function template %1 needs at least one signature to instantiate it with";
inline constexpr const char UnlistedSpecialization[] =
    "%0 is not one of the signatures of its %1 attribute (%2), so no GPU code is compiled for "
    "it; add a signature with its types";
inline constexpr const char UnlistedSpecializationSignatures[] = "the %0 attribute is here";
inline constexpr const char GufuncLayoutMismatch[] =
    "kernel::gufunc's layout '%0' differs from '%1', the layout of %2's kernel::guvectorize "
    "attribute: the gufunc checks its arguments' core dimensions against its own, and the "
    "function assumes the attribute's; give the gufunc the attribute's layout";
inline constexpr const char SignatureDoesNotInstantiate[] =
    "signature '%0' cannot instantiate %1: %2";
inline constexpr const char MissingHeader[] =
    "%0 needs the declarations of <kernel/kernel.h>: include it before %1";
inline constexpr const char GuvectorizeNeedsLayout[] =
    "kernel::guvectorize needs a layout string such as \"(n),(n)->()\"";
inline constexpr const char MalformedLayout[] = "malformed kernel::guvectorize layout: %0";
inline constexpr const char SecondLayout[] =
    "kernel::guvectorize takes one layout string; this is a second";
inline constexpr const char LayoutMismatch[] = "layout '%0' does not match %1: %2";
inline constexpr const char GuvectorizeReturnsVoid[] =
    "kernel::guvectorize signatures return void (outputs are parameters); '%0' returns %1";
inline constexpr const char ReduceShape[] = "kernel::reduce needs a function combining two values "
                                            "of its result type, T f(T, T); '%0' is %1";
inline constexpr const char ReduceNotScalar[] =
    "kernel::reduce takes functions of numbers, bool or complex values (its signatures are "
    "dtypes); '%0' combines values of type '%1'. An associative function of a struct needs no "
    "attribute to be the operator of kernel::scan or of the array algorithms";
inline constexpr const char ReduceSignature[] =
    "kernel::reduce signatures combine two values of their result type, like \"float32(float32, "
    "float32)\"; "
    "'%0' does not";
inline constexpr const char UnknownScope[] =
    "unknown attribute '%0' ignored; the kernel attributes are spelled [[kernel::%1]]";

// External device functions and the device code linked with them.
inline constexpr const char DeclareDeviceAbi[] =
    "kernel::declare_device takes the calling convention of the CUDA-C function: \"c\" (the "
    "default) or \"numba\"";
inline constexpr const char DeclareDeviceTemplate[] =
    "kernel::declare_device declares one CUDA-C function; %0 cannot be a template";
inline constexpr const char DeclareDeviceMember[] =
    "kernel::declare_device declares a free function; %0 is a member function";
inline constexpr const char DeclareDeviceVariadic[] =
    "kernel::declare_device cannot declare the variadic function %0: CUDA-C device functions "
    "take a fixed list of arguments";
inline constexpr const char DeclareDeviceBody[] =
    "%0 is declared with kernel::declare_device, so its GPU code comes from linked CUDA-C device "
    "code and it cannot have a body here; a host implementation for the CPU targets and the "
    "simulator goes in another source file";
inline constexpr const char DeclareDeviceParam[] =
    "parameter %0 of %1 has type '%2', which CUDA-C device code cannot take with %3 convention: "
    "use arithmetic types, enums and pointers";
inline constexpr const char DeclareDeviceResult[] =
    "%0 returns '%1', which CUDA-C device code cannot return with %2 convention: use void, an "
    "arithmetic type, an enum or a pointer";
inline constexpr const char NumbaNeedsResult[] =
    "with the Numba convention the CUDA-C function returns its value through its first argument; "
    "%0 returns void, so declare it with the C convention";
inline constexpr const char NumbaNeedsExternC[] =
    "with the Numba convention %0 must be declared extern \"C\": the CUDA-C function takes a "
    "result pointer first, so a C++ name would not match its symbol";
inline constexpr const char NumbaResultPointer[] =
    "%0 takes a pointer to its result type first, as the CUDA-C definition of a Numba-convention "
    "function does; if that is its result pointer, declare %0 as kernels call it, '%1': the "
    "result pointer and the status are added by the compiler";
inline constexpr const char DeclareDeviceInternal[] =
    "kernel::declare_device declares a function that linked CUDA-C device code defines; %0 has "
    "internal linkage (static, or in an unnamed namespace), so no other file can define it";
inline constexpr const char LinkNotString[] =
    "kernel::link arguments are paths of device code, such as \"bar.o\", as string literals";
inline constexpr const char LinkFileMissing[] =
    "cannot find the device code '%0' to link (looked for '%1'%select{|, in the link roots "
    "and on the include path}2)";
inline constexpr const char LinkFileDamaged[] = "cannot link the device code '%0' as %1: %2";
inline constexpr const char LinkFileVariable[] =
    "the device code '%0' names '%1' as a variable (__device__ or __constant__ data), but %2 is "
    "declared here with kernel::declare_device as a device function; define it there as an "
    "extern \"C\" __device__ function, or give the variable another name";
/// The text comes from kernel::detail::not_linkable_message, shared with the runtime.
inline constexpr const char LinkFileKind[] = "%0";

// Code that cannot run on a GPU.
inline constexpr const char GpuThrow[] = "GPU code cannot throw exceptions";
inline constexpr const char GpuTry[] = "GPU code cannot catch exceptions (try block)";
inline constexpr const char GpuVirtualCall[] =
    "GPU code cannot make virtual calls; %0 is called through the vtable";
inline constexpr const char GpuPolymorphicObject[] =
    "GPU code cannot create objects of %0, a class with virtual functions";
inline constexpr const char GpuTypeid[] = "GPU code cannot use RTTI (typeid)";
inline constexpr const char GpuDynamicCast[] = "GPU code cannot use RTTI (dynamic_cast)";
inline constexpr const char GpuInlineAsm[] = "GPU code cannot contain inline assembly";
inline constexpr const char GpuMutableGlobal[] =
    "GPU code cannot access the non-constant global variable %0; make it constexpr or pass "
    "its value as an argument";
inline constexpr const char GpuMutableGlobalThrough[] =
    "GPU code cannot access the non-constant global variable %0 (reached through %1): the GPU "
    "has its own copy of it, which the host never sees; pass the value or an array as an argument";
inline constexpr const char GpuThreadLocal[] =
    "GPU code cannot access the thread-local variable %0";
inline constexpr const char GpuStaticLocal[] =
    "GPU code cannot have the non-constant static variable %0";
inline constexpr const char GpuVariableLengthArray[] =
    "GPU code cannot have the variable-length array %0 (its size is known only at run time); "
    "use kernel::local_array<T, N> with a constant size";
inline constexpr const char GpuUnsupportedBuiltin[] =
    "GPU code cannot call %0: the GPU has no such operation";
inline constexpr const char GpuLongDouble[] =
    "GPU code cannot use 'long double' (no GPU has it); use double";
inline constexpr const char GpuHostOnlyType[] =
    "GPU code cannot use '%0', a type only x86 CPUs have";
inline constexpr const char GpuWideInteger[] =
    "GPU code cannot use %0: GPU integers are at most 64 bits wide; use int64_t or uint64_t";
inline constexpr const char GpuHostOnlyBuiltin[] =
    "GPU code cannot call %0, a builtin only x86 CPUs have";
inline constexpr const char GpuComputedGoto[] =
    "GPU code cannot jump to the address of a label (computed goto); use a switch";
inline constexpr const char GpuAtomicSize[] =
    "GPU atomic operations work on values of 1, 2, 4 or 8 bytes; this one is on '%0', of %1 "
    "bytes";
inline constexpr const char GpuMultiVersion[] =
    "GPU code cannot call %0: it has a version for each x86 CPU (target or target_clones "
    "attribute), chosen when the program starts";
inline constexpr const char GpuParameterBlock[] =
    "the arguments of %0 take %1 bytes, more than the %2 bytes that a GPU kernel's parameters "
    "may take; pass large data in an array";
inline constexpr const char FusedParameterBlock[] =
    "the fused expression %0 reads %1 bytes of array addresses, strides and scalars, more than "
    "the %2 bytes that a GPU kernel's parameters may take; evaluate part of it into an array "
    "first";
inline constexpr const char ConstevalFunction[] =
    "%0 cannot apply to the consteval function %1: it runs only at compile time, so it has no "
    "code for any target";
inline constexpr const char GpuNew[] = "GPU code cannot allocate memory with 'new'";
inline constexpr const char GpuDelete[] = "GPU code cannot free memory with 'delete'";
inline constexpr const char GpuIndirectCall[] =
    "GPU code cannot make indirect calls (through a function pointer or std::function)";
inline constexpr const char GpuObjectThroughEllipsis[] =
    "argument %0 of %1 is an object of type %2, which '...' passes as its bytes, not as a number; "
    "convert it (unsigned(threadIdx.x)), or call printf unqualified, which converts "
    "kernel::threadIdx "
    "and its kind";
inline constexpr const char GpuVariadicCall[] =
    "GPU code cannot call the variadic function %0 (GPUs have no C variable argument lists)";
inline constexpr const char GpuUndefinedCallee[] =
    "GPU code cannot call %0: its definition is not visible in this translation unit";
inline constexpr const char GpuLibraryCall[] =
    "GPU code cannot call %0: the C library function has no GPU implementation";
inline constexpr const char NoteCalledFrom[] = "%0 is called from %1 here";
inline constexpr const char NoteCompiledForGpu[] =
    "%0 is compiled for the GPU because of this %1 attribute";
inline constexpr const char NoteCompiledForGpuFused[] =
    "%0 is compiled for the GPU as part of the fused expression '%1', which the program "
    "evaluates (build the expression from functions that can run on a GPU)";
inline constexpr const char NoteCompiledForGpuAlgorithm[] =
    "%0 is compiled for the GPU as the operator of '%1', which the program can run on a "
    "device (pass an operator that can run on a GPU)";
inline constexpr const char NoteThrowingLibrary[] =
    "this is how the C++ library reports errors, with exceptions, which GPU code does not have";
inline constexpr const char NoteExternTemplate[] =
    "an explicit instantiation declaration ('extern template') keeps the body out of this "
    "translation unit, and GPU code needs it here; instantiate it here without 'extern'";

} // namespace diag
} // namespace plugin
} // namespace kernel

#endif // KERNEL_PLUGIN_KERNELDIAGNOSTICS_H
