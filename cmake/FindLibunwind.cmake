# SPDX-License-Identifier: MIT
# Finds libunwind (Debian: libunwind-dev) through pkg-config module `libunwind`.
# Defines the imported target Libunwind::Libunwind.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_LIBUNWIND QUIET libunwind)
endif()
find_path(LIBUNWIND_INCLUDE_DIR libunwind.h HINTS ${PC_LIBUNWIND_INCLUDE_DIRS})
find_library(LIBUNWIND_LIBRARY NAMES unwind HINTS ${PC_LIBUNWIND_LIBRARY_DIRS})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Libunwind REQUIRED_VARS LIBUNWIND_LIBRARY LIBUNWIND_INCLUDE_DIR)
if(Libunwind_FOUND AND NOT TARGET Libunwind::Libunwind)
  add_library(Libunwind::Libunwind UNKNOWN IMPORTED)
  set_target_properties(Libunwind::Libunwind PROPERTIES IMPORTED_LOCATION "${LIBUNWIND_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LIBUNWIND_INCLUDE_DIR}")
endif()
mark_as_advanced(LIBUNWIND_INCLUDE_DIR LIBUNWIND_LIBRARY)
