# FindCUnit -- CUnit (Debian: libcunit1-dev). Imported target: CUnit::CUnit
include(FindPackageHandleStandardArgs)
find_path(CUnit_INCLUDE_DIR NAMES CUnit/CUnit.h)
find_library(CUnit_LIBRARY NAMES cunit)
find_package_handle_standard_args(CUnit REQUIRED_VARS CUnit_LIBRARY CUnit_INCLUDE_DIR)
if(CUnit_FOUND AND NOT TARGET CUnit::CUnit)
  add_library(CUnit::CUnit UNKNOWN IMPORTED)
  set_target_properties(CUnit::CUnit PROPERTIES IMPORTED_LOCATION "${CUnit_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CUnit_INCLUDE_DIR}")
endif()
mark_as_advanced(CUnit_INCLUDE_DIR CUnit_LIBRARY)
