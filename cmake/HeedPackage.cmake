# heed as an installed library and Debian packages (docs/INSTALL.md): the shared library
# beside the static one, `cmake --install` into Debian's places, the CMake package
# (find_package(heed) -> heed::heed) and heed.pc, a man page per command, bash completion,
# the Python module (python/), and `cpack -G DEB`: four packages, split as Debian splits a
# library (heed, libheed0, libheed-dev, python3-heed). Every install rule names the
# component, i.e. the package, it goes to. Included by CMakeLists.txt once the heed library
# and command exist.
# Debian keeps libraries in lib/<multiarch> under /usr and /usr/local alike.
if(CMAKE_LIBRARY_ARCHITECTURE)
  set(CMAKE_INSTALL_LIBDIR lib/${CMAKE_LIBRARY_ARCHITECTURE} CACHE PATH "Object code libraries")
endif()
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# libheed.so: every object of libheed.a (position-independent, CMakeLists.txt), exporting only
# what include/heed/ marks HEED_API; the libraries heed uses stay private to it.
file(WRITE ${CMAKE_BINARY_DIR}/generated/shared_library.cpp
     "// libheed.so takes all of its code from libheed.a (cmake/HeedPackage.cmake).\n")
add_library(heed_shared SHARED ${CMAKE_BINARY_DIR}/generated/shared_library.cpp)
target_link_libraries(heed_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,heed>")
target_link_options(heed_shared PRIVATE -Wl,--no-undefined)
set_target_properties(heed_shared PROPERTIES
  OUTPUT_NAME heed EXPORT_NAME heed VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
target_include_directories(heed_shared INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/generated>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(heed_shared INTERFACE cxx_std_20)
add_library(heed::heed ALIAS heed_shared)

# The command (heed; it links libheed.a, so it needs no libheed0), the shared library
# (libheed0: libheed.so.0 and its version), and what a program is built with (libheed-dev:
# the libheed.so link, libheed.a and the public headers).
install(TARGETS heed_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
install(TARGETS heed_shared EXPORT heedTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev)
install(FILES $<TARGET_FILE:heed> DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/heed DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT dev FILES_MATCHING PATTERN "*.h")
install(FILES ${CMAKE_BINARY_DIR}/generated/heed/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/heed COMPONENT dev)

# find_package(heed): heed::heed, the shared library with its headers.
install(EXPORT heedTargets NAMESPACE heed:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heed
        COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/heedConfig.cmake.in
  ${CMAKE_BINARY_DIR}/heedConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heed)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/heedConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/heedConfig.cmake ${CMAKE_BINARY_DIR}/heedConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heed COMPONENT dev)

# pkg-config: `pkg-config --cflags --libs heed` (shared), `--static` adds what libheed.a needs:
# every library the heed target links, as -l flags found through the -dev packages that
# libheed-dev depends on (HEED_DEV_DEPENDS below), never a path to a build machine's file.
# OpenBLAS is its OpenMP variant, by its directory and an RPATH, as heed itself links it.
set(HEED_PC_LIBS -L${OPENBLAS_DIR} -Wl,-rpath,${OPENBLAS_DIR} -lopenblas -ldnnl)
foreach(module SENTENCEPIECE XXHASH HTTPLIB CAIRO PANGOCAIRO MPI SNDFILE SOXR KISSFFT)
  foreach(dir ${${module}_LIBRARY_DIRS})
    if(NOT dir STREQUAL "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}")  # the linker's own
      list(APPEND HEED_PC_LIBS -L${dir})
    endif()
  endforeach()
  list(TRANSFORM ${module}_LIBRARIES PREPEND -l OUTPUT_VARIABLE libs)
  list(APPEND HEED_PC_LIBS ${libs})
endforeach()
list(APPEND HEED_PC_LIBS -lyaml-cpp -lz -lstemmer -lgomp -lpthread)
list(REMOVE_DUPLICATES HEED_PC_LIBS)
list(JOIN HEED_PC_LIBS " " HEED_PC_LIBS_PRIVATE)
string(PREPEND HEED_PC_LIBS_PRIVATE " ")
# The prefix relative to the .pc file, so one file serves /usr (the .deb) and /usr/local.
file(RELATIVE_PATH HEED_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/heed.pc.in ${CMAKE_BINARY_DIR}/heed.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/heed.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT dev)

# A man page per command, written from its --help by help2man (Debian's help2man), and the
# bash completion, which asks the installed heed for its commands and options.
find_program(HELP2MAN help2man)
if(HELP2MAN)
  set(HEED_MAN_DIR ${CMAKE_BINARY_DIR}/man)
  set(HEED_MAN_STAMP ${HEED_MAN_DIR}/.stamp)
  add_custom_command(OUTPUT ${HEED_MAN_STAMP}
    COMMAND bash ${PROJECT_SOURCE_DIR}/tools/package/man_pages.sh $<TARGET_FILE:heed_cli>
            ${HEED_MAN_DIR} ${PROJECT_VERSION} ${HELP2MAN}
    COMMAND ${CMAKE_COMMAND} -E touch ${HEED_MAN_STAMP}
    DEPENDS heed_cli ${PROJECT_SOURCE_DIR}/tools/package/man_pages.sh
    COMMENT "Writing the man pages (help2man)" VERBATIM)
  add_custom_target(heed_man ALL DEPENDS ${HEED_MAN_STAMP})
  install(DIRECTORY ${HEED_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
          COMPONENT cli FILES_MATCHING PATTERN "*.1.gz")
else()
  message(STATUS "help2man not found: no man pages (tools/setup.sh installs it)")
endif()
install(FILES ${PROJECT_SOURCE_DIR}/tools/package/heed.bash-completion
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME heed COMPONENT cli)

# The Python module (python/CMakeLists.txt sets HEED_HAS_PYTHON when pybind11 is there).
if(HEED_BUILD_PYTHON)
  add_subdirectory(${PROJECT_SOURCE_DIR}/python ${CMAKE_BINARY_DIR}/python)
endif()

# The documentation, as Debian keeps it: /usr/share/doc/PACKAGE. heed has all of docs/;
# libheed-dev the API's page and examples/embed; python3-heed the Python and PyTorch pages.
set(HEED_DOC_ROOT ${CMAKE_INSTALL_DATADIR}/doc)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${HEED_DOC_ROOT}/heed COMPONENT cli)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${HEED_DOC_ROOT}/heed/docs COMPONENT cli)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${HEED_DOC_ROOT}/libheed0 COMPONENT lib)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/docs/API.md
        DESTINATION ${HEED_DOC_ROOT}/libheed-dev COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/embed
        DESTINATION ${HEED_DOC_ROOT}/libheed-dev/examples COMPONENT dev)
if(HEED_HAS_PYTHON)
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/docs/PYTHON.md
                ${PROJECT_SOURCE_DIR}/docs/INTEROP.md
          DESTINATION ${HEED_DOC_ROOT}/python3-heed COMPONENT python)
endif()

# `cpack -G DEB` (from the build directory): one .deb per component, named
# PACKAGE_VERSION_amd64.deb. Each one's dependencies are the Debian packages of the libraries
# its binaries link (dpkg-shlibdeps finds them) and those named below: OpenBLAS's OpenMP
# variant by name (heed runs it through its RPATH, whichever variant the system's alternative
# picks; dpkg-shlibdeps names only the virtual libopenblas0), the fonts the pictures are
# drawn with, libheed0 at this very version for libheed-dev and python3-heed (dpkg-shlibdeps
# cannot know it: it is built here), and for libheed-dev the -dev packages whose libraries
# `pkg-config --static --libs heed` names.
set(CPACK_PACKAGE_NAME heed)
set(CPACK_PACKAGE_VENDOR "the heed developers")
set(CPACK_PACKAGE_CONTACT "heed developers <heed@localhost>")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING IGNORE)
set(CPACK_COMPONENTS_ALL cli lib dev)
if(HEED_HAS_PYTHON)
  list(APPEND CPACK_COMPONENTS_ALL python)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# dpkg-shlibdeps finds libheed.so.0, which the Python module links, in the build directory.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR})
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(HEED_LIBHEED0 "libheed${PROJECT_VERSION_MAJOR} (= ${PROJECT_VERSION})")

set(CPACK_DEBIAN_CLI_PACKAGE_NAME heed)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION science)
set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "libopenblas0-openmp, fonts-dejavu-core")
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "openmpi-bin, bash-completion, fonts-wqy-microhei")
set(CPACK_DEBIAN_CLI_PACKAGE_SUGGESTS "libheed-dev, python3-heed")
set(CPACK_DEBIAN_CLI_DESCRIPTION
    "train attention-based sequence models, run them, and see what they attend to
heed trains attention models (Bahdanau, Luong, no-attention; GRU and LSTM encoders) on \
your data with its own automatic differentiation, decodes with greedy and beam search, scores \
with BLEU, chrF, WER and AER, draws attention and saliency, and serves a model over HTTP. \
This package brings the heed command, its man pages and bash completion.")

set(CPACK_DEBIAN_LIB_PACKAGE_NAME libheed${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIB_PACKAGE_DEPENDS "libopenblas0-openmp")
set(CPACK_DEBIAN_LIB_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_LIB_DESCRIPTION "attention-based sequence models (shared library)
libheed.so.${PROJECT_VERSION_MAJOR}, the C++ library of heed: load, train and run attention \
models and score their output from a program of your own (the public API of \
/usr/include/heed, see libheed-dev).")

set(HEED_DEV_DEPENDS libopenblas-openmp-dev libdnnl-dev libsentencepiece-dev libyaml-cpp-dev
    libxxhash-dev zlib1g-dev libstemmer-dev libcpp-httplib-dev libcairo2-dev libpango1.0-dev
    libopenmpi-dev libsndfile1-dev libsoxr-dev libkissfft-dev)
list(JOIN HEED_DEV_DEPENDS ", " HEED_DEV_DEPENDS)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libheed-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${HEED_LIBHEED0}, ${HEED_DEV_DEPENDS}")
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "g++ (>= 4:12), pkg-config, cmake")
set(CPACK_DEBIAN_DEV_DESCRIPTION "attention-based sequence models (development files)
The public C++20 headers of heed (/usr/include/heed), the libheed.so link, the static \
library libheed.a, CMake's find_package(heed) files and heed.pc for pkg-config (with \
--static: what libheed.a needs), and the examples/embed program.")

set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-heed)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS
    "${HEED_LIBHEED0}, ${HEED_PYTHON_DEPENDS}")
set(CPACK_DEBIAN_PYTHON_PACKAGE_SUGGESTS "python3-torch")
set(CPACK_DEBIAN_PYTHON_DESCRIPTION "attention-based sequence models (Python 3 module)
The Python module heed, over libheed: load a model, translate batches with beam search and \
n-best lists, get attention, saliency and alignments as numpy arrays, score BLEU, chrF, WER \
and AER, and train from a config with a progress callback. With heed_torch, which loads \
the files of heed export into PyTorch's reference models and saves them back.")
set(CPACK_GENERATOR DEB)
include(CPack)
