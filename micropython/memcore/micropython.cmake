# memcore as a MicroPython user C module, for CMake ports (esp32, rp2, ...).  Included from
# ../micropython.cmake, which is what USER_C_MODULES points at:
#   make -C ports/esp32 BOARD=ESP32_GENERIC USER_C_MODULES=<repo>/micropython/micropython.cmake
# The core's sources are taken from csrc/ by glob (evaluated when CMake configures: run
# `idf.py reconfigure` after adding a file to csrc/src).
add_library(usermod_memcore INTERFACE)

get_filename_component(MEMCORE_CSRC ${CMAKE_CURRENT_LIST_DIR}/../../csrc ABSOLUTE)
file(GLOB MEMCORE_CORE_SOURCES ${MEMCORE_CSRC}/src/*.c)
# reorder.c is the host's: `memcore shrink` reorders the model file on the host, the board
# runs the order written, and no binding calls it
list(FILTER MEMCORE_CORE_SOURCES EXCLUDE REGEX "/reorder\\.c$")
list(SORT MEMCORE_CORE_SOURCES)

target_sources(usermod_memcore INTERFACE
    ${CMAKE_CURRENT_LIST_DIR}/modmemcore.c
    ${CMAKE_CURRENT_LIST_DIR}/modmemcore_check.c
    ${MEMCORE_CORE_SOURCES}
)
target_include_directories(usermod_memcore INTERFACE
    ${MEMCORE_CSRC}/include
    ${MEMCORE_CSRC}/src
)
# No -Werror here: an INTERFACE compile option would reach every file of the firmware, and
# ESP-IDF already builds with -Werror=all.  The unix build (micropython.mk) is the -Werror gate.
target_link_libraries(usermod INTERFACE usermod_memcore)
