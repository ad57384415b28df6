# FindLibpfm -- libpfm4, performance event names for perf_event_open (Debian: libpfm4-dev). Imported target:
# Libpfm::Libpfm. Optional: without it the PMU layer (src/pmu) builds without event names and says so at run time.
include(FindPackageHandleStandardArgs)
find_path(Libpfm_INCLUDE_DIR NAMES perfmon/pfmlib_perf_event.h)
find_library(Libpfm_LIBRARY NAMES pfm)
find_package_handle_standard_args(Libpfm REQUIRED_VARS Libpfm_LIBRARY Libpfm_INCLUDE_DIR)
if(Libpfm_FOUND AND NOT TARGET Libpfm::Libpfm)
  add_library(Libpfm::Libpfm UNKNOWN IMPORTED)
  set_target_properties(Libpfm::Libpfm PROPERTIES IMPORTED_LOCATION "${Libpfm_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${Libpfm_INCLUDE_DIR}")
endif()
mark_as_advanced(Libpfm_INCLUDE_DIR Libpfm_LIBRARY)
