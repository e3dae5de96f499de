# Entry point for CMake ports: USER_C_MODULES=<repo>/micropython/micropython.cmake
include(${CMAKE_CURRENT_LIST_DIR}/memcore/micropython.cmake)
