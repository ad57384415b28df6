# ISA-specific kernel object libraries. Each is compiled with its own ISA flags only; the rest of the library
# stays baseline so that CPU detection and the driver never fault on an older CPU (SLEEF/BLIS habit).
# Each family appends its objects to SPMV_OBJECTS and defines SPMV_HAVE_<FAMILY> on spmv_core for the registry.

set(SPMV_ISA_INCLUDES ${CMAKE_CURRENT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR}/src/util
    ${CMAKE_CURRENT_SOURCE_DIR}/src/kernels ${CMAKE_CURRENT_SOURCE_DIR}/src)

# ---------------------------------------------------------------- AVX-512 (x86-64)
# SELL-C-sigma (C = 8, 16, 32, 64; gather and emul x access; plus non-temporal-store variants) and CRS kernels in
# src/kernels/avx512/, built
# with -mavx512f -mavx512vl -mavx512bw -mavx512dq only here (never -march=native); the registry uses them when
# src/arch/cpu.c finds AVX-512F/DQ/BW/VL and OS zmm support at run time.
option(SPMV_WITH_AVX512 "Build the AVX-512 kernels (x86-64; chosen at run time)" ON)
set(SPMV_AVX512_FLAGS -mavx512f -mavx512vl -mavx512bw -mavx512dq)
set(SPMV_AVX512_DIR ${CMAKE_CURRENT_SOURCE_DIR}/src/kernels/avx512)
if(SPMV_WITH_AVX512 AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|x64)$")
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-mavx512f -mavx512vl -mavx512bw -mavx512dq")
  check_c_source_compiles([=[
    #include <immintrin.h>
    #include <stdint.h>
    int main(void) {
      static double x[8], y[8]; static int32_t c[8];
      __m256i i = _mm256_maskz_loadu_epi32((__mmask8)3, c);
      __m512d g = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), (__mmask8)3, i, x, 8);
      g = _mm512_fmadd_pd(g, _mm512_loadu_pd(x), _mm512_i32gather_pd(i, x, 8));
      _mm512_mask_storeu_pd(y, (__mmask8)1, g);
      _mm512_i32scatter_pd(y, i, g, 8);
      return (int)_mm512_reduce_add_pd(g);
    }]=] SPMV_AVX512_COMPILES)
  unset(CMAKE_REQUIRED_FLAGS)
  if(SPMV_AVX512_COMPILES)
    add_library(spmv_k_avx512 OBJECT
      ${SPMV_AVX512_DIR}/sell_avx512.c
      ${SPMV_AVX512_DIR}/crs_avx512.c
      ${SPMV_AVX512_DIR}/family.c)
    set_target_properties(spmv_k_avx512 PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
    target_include_directories(spmv_k_avx512 PRIVATE ${SPMV_ISA_INCLUDES})
    target_compile_definitions(spmv_k_avx512 PRIVATE SPMV_BUILDING_LIBRARY SPMV_ALIGNMENT=${SPMV_ALIGNMENT})
    # hot kernels: never size-optimized (-Os keeps the accumulator arrays on the stack)
    target_compile_options(spmv_k_avx512 PRIVATE ${SPMV_WARN} ${SPMV_AVX512_FLAGS} $<$<CONFIG:MinSizeRel>:-O2>)
    target_compile_definitions(spmv_core PRIVATE SPMV_HAVE_AVX512)
    list(APPEND SPMV_OBJECTS $<TARGET_OBJECTS:spmv_k_avx512>)
    message(STATUS "spmv: AVX-512 kernels: built (${SPMV_AVX512_FLAGS})")
    # Their machine code is what each descriptor declares (objdump of the built objects against tests/kernel_shapes;
    # optimized builds only): C/8 * mve FMAs per loop, gathers or emulated gathers as the x access says, run-column
    # loops of masked loads, no spill; masked stores, scatters and (nt variants) streaming stores.
    if(SPMV_BUILD_TESTS AND NOT CMAKE_BUILD_TYPE MATCHES "^(Debug|)$")
      if(CMAKE_OBJDUMP)
        set(SPMV_AVX512_OBJDUMP ${CMAKE_OBJDUMP})
      else()
        find_program(SPMV_AVX512_OBJDUMP NAMES objdump)
      endif()
      add_test(NAME avx512_inner_loop
               COMMAND ${SPMV_AVX512_DIR}/check_inner_loop.sh --shapes $<TARGET_FILE:kernel_shapes>
                       --objdump ${SPMV_AVX512_OBJDUMP} $<TARGET_OBJECTS:spmv_k_avx512>
               COMMAND_EXPAND_LISTS)
    endif()
  else()
    message(STATUS "spmv: AVX-512 kernels: not built (the compiler does not accept ${SPMV_AVX512_FLAGS})")
  endif()
else()
  message(STATUS "spmv: AVX-512 kernels: not built (SPMV_WITH_AVX512=${SPMV_WITH_AVX512}, ${CMAKE_SYSTEM_PROCESSOR})")
endif()

# Test-only check of the AVX-512 kernels' logic on any CPU: the same kernel sources compiled without AVX-512 flags
# against portable C stand-ins for the intrinsics (src/kernels/avx512/emu/), under their own symbol names, compared
# with the reference kernels on hand-made layouts and on matrices the library builds (it links spmv_static for
# that). Never part of the library.
if(SPMV_BUILD_TESTS)
  add_executable(spmv_avx512_emu_check
    ${SPMV_AVX512_DIR}/emu/avx512_check.c
    ${SPMV_AVX512_DIR}/sell_avx512.c
    ${SPMV_AVX512_DIR}/crs_avx512.c
    ${SPMV_AVX512_DIR}/family.c)
  target_include_directories(spmv_avx512_emu_check PRIVATE ${SPMV_ISA_INCLUDES} ${SPMV_AVX512_DIR})
  target_compile_definitions(spmv_avx512_emu_check PRIVATE SPMV_AVX512_EMU SPMV_EMU_WITH_LIBRARY
    SPMV_SHARED_MATRICES="${SPMV_SHARED_MATRICES}")
  target_compile_options(spmv_avx512_emu_check PRIVATE -Wall -Wextra -Wno-unused-parameter)
  target_link_libraries(spmv_avx512_emu_check PRIVATE spmv_static)
  add_test(NAME avx512_emu COMMAND spmv_avx512_emu_check)
  set_tests_properties(avx512_emu PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77) # 77: the shared matrices are missing
  # the same with the software-prefetch paths on every matrix (by default only matrices of 16 MiB and more)
  add_test(NAME avx512_emu.prefetch COMMAND spmv_avx512_emu_check)
  set_tests_properties(avx512_emu.prefetch PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 ENVIRONMENT "SPMV_PREFETCH=1")
endif()

# ---------------------------------------------------------------- AVX2 + FMA (x86-64)
# SELL-C-sigma (C = 4, 8, 16, 32; gather and emul x access) and CRS kernels in src/kernels/avx2/, built with
# -mavx2 -mfma only here; the registry uses them when src/arch/cpu.c finds AVX2, FMA and OS ymm support (and no
# AVX-512, or SPMV_ARCH=avx2).
option(SPMV_WITH_AVX2 "Build the AVX2 kernels (x86-64; chosen at run time)" ON)
set(SPMV_AVX2_FLAGS -mavx2 -mfma)
if(SPMV_WITH_AVX2 AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|x64)$")
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-mavx2 -mfma")
  check_c_source_compiles([=[
    #include <immintrin.h>
    int main(void) {
      static double x[8]; static int c[4];
      __m256d g = _mm256_i32gather_pd(x, _mm_loadu_si128((const __m128i *)c), 8);
      g = _mm256_fmadd_pd(g, g, _mm256_maskload_pd(x, _mm256_set1_epi64x(-1)));
      _mm256_storeu_pd(x, g);
      return (int)x[0];
    }]=] SPMV_AVX2_COMPILES)
  unset(CMAKE_REQUIRED_FLAGS)
  if(SPMV_AVX2_COMPILES)
    add_library(spmv_k_avx2 OBJECT
      src/kernels/avx2/sell_avx2.c
      src/kernels/avx2/crs_avx2.c
      src/kernels/avx2/family.c)
    set_target_properties(spmv_k_avx2 PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
    target_include_directories(spmv_k_avx2 PRIVATE ${SPMV_ISA_INCLUDES})
    target_compile_definitions(spmv_k_avx2 PRIVATE SPMV_BUILDING_LIBRARY SPMV_ALIGNMENT=${SPMV_ALIGNMENT})
    target_compile_options(spmv_k_avx2 PRIVATE ${SPMV_WARN} ${SPMV_AVX2_FLAGS} $<$<CONFIG:MinSizeRel>:-O2>)
    target_compile_definitions(spmv_core PRIVATE SPMV_HAVE_AVX2)
    list(APPEND SPMV_OBJECTS $<TARGET_OBJECTS:spmv_k_avx2>)
    message(STATUS "spmv: AVX2 kernels: built (${SPMV_AVX2_FLAGS})")
  else()
    message(STATUS "spmv: AVX2 kernels: not built (the compiler does not accept ${SPMV_AVX2_FLAGS})")
  endif()
endif()

# ---------------------------------------------------------------- SVE (aarch64)
# Vector-length agnostic: -march=armv8-a+sve on these files only, never -msve-vector-bits. The family is used at
# run time only when getauxval(AT_HWCAP) & HWCAP_SVE (src/arch/cpu.c); elsewhere the reference kernels run.
option(SPMV_ENABLE_SVE "Build the Arm SVE kernels (aarch64 only)" ON)
if(SPMV_ENABLE_SVE AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
  set(SPMV_SVE_FLAGS -march=armv8-a+sve)
  set(CMAKE_REQUIRED_FLAGS "-march=armv8-a+sve")
  check_c_source_compiles([=[
#include <arm_sve.h>
int main(void) { svfloat64_t v = svdup_n_f64(1.0); return (int)svaddv_f64(svptrue_b64(), v) - (int)svcntd(); }
]=] SPMV_COMPILER_HAS_SVE)
  unset(CMAKE_REQUIRED_FLAGS)
  if(SPMV_COMPILER_HAS_SVE)
    add_library(spmv_k_sve OBJECT
      src/kernels/sve/family.c
      src/kernels/sve/sell_sve.c
      src/kernels/sve/crs_sve.c)
    set_target_properties(spmv_k_sve PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
    target_include_directories(spmv_k_sve PRIVATE ${SPMV_ISA_INCLUDES})
    target_compile_definitions(spmv_k_sve PRIVATE SPMV_BUILDING_LIBRARY)
    target_compile_options(spmv_k_sve PRIVATE ${SPMV_WARN} ${SPMV_SVE_FLAGS})
    target_compile_definitions(spmv_core PRIVATE SPMV_HAVE_SVE)
    list(APPEND SPMV_OBJECTS $<TARGET_OBJECTS:spmv_k_sve>)
    # The inner loop of the SVE SELL kernel is what the paper describes (objdump of the built object; optimized
    # builds only: at -O0 the accumulators live on the stack).
    if(SPMV_BUILD_TESTS AND NOT CMAKE_BUILD_TYPE MATCHES "^(Debug|)$")
      if(CMAKE_OBJDUMP)
        set(SPMV_OBJDUMP ${CMAKE_OBJDUMP})
      else()
        find_program(SPMV_OBJDUMP NAMES aarch64-linux-gnu-objdump objdump)
      endif()
      add_test(NAME sve_inner_loop
               COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/check-sve-inner-loop.sh --objdump ${SPMV_OBJDUMP}
                       $<TARGET_OBJECTS:spmv_k_sve>
               COMMAND_EXPAND_LISTS)
    endif()
  else()
    message(WARNING "spmv: ${CMAKE_C_COMPILER} cannot compile SVE intrinsics: building without the SVE kernels")
  endif()
endif()
