# Cross-compile nvbench for 64-bit Windows with Debian's mingw-w64
# (gcc-mingw-w64-x86-64):
#   cmake -S . -B build-win -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
# The tests then run under wine when it is installed (tests/win/wine-run.sh
# is the CMAKE_CROSSCOMPILING_EMULATOR; see docs/windows.md).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(NVB_MINGW_PREFIX x86_64-w64-mingw32 CACHE STRING "mingw-w64 tool prefix")
# Debian ships two thread models; the posix one links winpthreads into
# every program, win32 does not. nvbench uses Win32 threads directly.
find_program(CMAKE_C_COMPILER NAMES ${NVB_MINGW_PREFIX}-gcc-win32 ${NVB_MINGW_PREFIX}-gcc REQUIRED)
find_program(CMAKE_RC_COMPILER NAMES ${NVB_MINGW_PREFIX}-windres)
find_program(CMAKE_AR NAMES ${NVB_MINGW_PREFIX}-gcc-ar ${NVB_MINGW_PREFIX}-ar)
find_program(CMAKE_RANLIB NAMES ${NVB_MINGW_PREFIX}-gcc-ranlib ${NVB_MINGW_PREFIX}-ranlib)
find_program(NVB_OBJDUMP NAMES ${NVB_MINGW_PREFIX}-objdump)

set(CMAKE_FIND_ROOT_PATH /usr/${NVB_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Tests run through wine when it is there (CTest prefixes each command).
find_program(NVB_WINE NAMES wine wine64)
if(NVB_WINE)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/../tests/win/wine-run.sh)
endif()
