# ISA-specific kernel object libraries. Each is compiled with its own ISA flags only; the rest of the library
# stays baseline so that CPU detection and the driver never fault on an older CPU (SLEEF/BLIS habit).
# Each family appends its objects to SPMV_OBJECTS and defines SPMV_HAVE_<FAMILY> on spmv_core for the registry.

set(SPMV_ISA_INCLUDES ${CMAKE_CURRENT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR}/src/util
    ${CMAKE_CURRENT_SOURCE_DIR}/src/kernels ${CMAKE_CURRENT_SOURCE_DIR}/src)

# ---------------------------------------------------------------- AVX-512 (x86-64)
# (issue 4) add_library(spmv_k_avx512 OBJECT ...) with -mavx512f -mavx512vl -mavx512bw -mavx512dq only here.

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
      src/kernels/sve/sve_kernels.c
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
