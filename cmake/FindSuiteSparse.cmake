# FindSuiteSparse -- SuiteSparse 5.x (Debian 12: libsuitesparse-dev) ships no CMake package.
#
# Components: cholmod, cxsparse (suitesparseconfig is always searched).
# Imported targets: SuiteSparse::config, SuiteSparse::cholmod, SuiteSparse::cxsparse
# Result variables: SuiteSparse_FOUND, SuiteSparse_INCLUDE_DIR, SuiteSparse_<comp>_LIBRARY
include(FindPackageHandleStandardArgs)

find_path(SuiteSparse_INCLUDE_DIR NAMES SuiteSparse_config.h PATH_SUFFIXES suitesparse)
find_library(SuiteSparse_config_LIBRARY NAMES suitesparseconfig)

set(_ss_required SuiteSparse_INCLUDE_DIR SuiteSparse_config_LIBRARY)
foreach(_c IN LISTS SuiteSparse_FIND_COMPONENTS)
  if(_c STREQUAL "cholmod")
    find_library(SuiteSparse_cholmod_LIBRARY NAMES cholmod)
  elseif(_c STREQUAL "cxsparse")
    find_library(SuiteSparse_cxsparse_LIBRARY NAMES cxsparse)
  else()
    message(FATAL_ERROR "FindSuiteSparse: unknown component ${_c}")
  endif()
  if(SuiteSparse_${_c}_LIBRARY)
    set(SuiteSparse_${_c}_FOUND TRUE)
  endif()
  if(SuiteSparse_FIND_REQUIRED_${_c})
    list(APPEND _ss_required SuiteSparse_${_c}_LIBRARY)
  endif()
endforeach()

find_package_handle_standard_args(SuiteSparse REQUIRED_VARS ${_ss_required} HANDLE_COMPONENTS)

if(SuiteSparse_FOUND AND NOT TARGET SuiteSparse::config)
  add_library(SuiteSparse::config UNKNOWN IMPORTED)
  set_target_properties(SuiteSparse::config PROPERTIES
    IMPORTED_LOCATION "${SuiteSparse_config_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${SuiteSparse_INCLUDE_DIR}")
  foreach(_c cholmod cxsparse)
    if(SuiteSparse_${_c}_LIBRARY AND NOT TARGET SuiteSparse::${_c})
      add_library(SuiteSparse::${_c} UNKNOWN IMPORTED)
      set_target_properties(SuiteSparse::${_c} PROPERTIES
        IMPORTED_LOCATION "${SuiteSparse_${_c}_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${SuiteSparse_INCLUDE_DIR}"
        INTERFACE_LINK_LIBRARIES SuiteSparse::config)
    endif()
  endforeach()
endif()
mark_as_advanced(SuiteSparse_INCLUDE_DIR SuiteSparse_config_LIBRARY SuiteSparse_cholmod_LIBRARY
                 SuiteSparse_cxsparse_LIBRARY)
