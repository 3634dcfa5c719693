# heed as an installed library and a Debian package (docs/INSTALL.md): the shared library
# beside the static one, `cmake --install` into Debian's places, the CMake package
# (find_package(heed) -> heed::heed) and heed.pc, a man page per command, bash completion,
# and `cpack -G DEB`. Included by CMakeLists.txt once the heed library and command exist.
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

# The command, the libraries and the public headers.
install(TARGETS heed_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS heed_shared EXPORT heedTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT Development)
install(FILES $<TARGET_FILE:heed> DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/heed DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${CMAKE_BINARY_DIR}/generated/heed/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/heed)

# find_package(heed): heed::heed, the shared library with its headers.
install(EXPORT heedTargets NAMESPACE heed:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heed)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/heedConfig.cmake.in
  ${CMAKE_BINARY_DIR}/heedConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heed)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/heedConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/heedConfig.cmake ${CMAKE_BINARY_DIR}/heedConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heed)

# pkg-config: `pkg-config --cflags --libs heed` (shared), `--static` lists what libheed.a needs.
set(HEED_PC_LIBS_PRIVATE "")
foreach(lib ${OPENBLAS_LIBRARY} ${DNNL_LIBRARY} ${SENTENCEPIECE_TRAIN_LIBRARY})
  string(APPEND HEED_PC_LIBS_PRIVATE " ${lib}")
endforeach()
string(APPEND HEED_PC_LIBS_PRIVATE " -lgomp -lz")
# The prefix relative to the .pc file, so one file serves /usr (the .deb) and /usr/local.
file(RELATIVE_PATH HEED_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/heed.pc.in ${CMAKE_BINARY_DIR}/heed.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/heed.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

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
          FILES_MATCHING PATTERN "*.1.gz")
else()
  message(STATUS "help2man not found: no man pages (tools/setup.sh installs it)")
endif()
install(FILES ${PROJECT_SOURCE_DIR}/tools/package/heed.bash-completion
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME heed)

# The documentation, as Debian keeps it.
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/embed DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# `cpack -G DEB` (from the build directory): heed_VERSION_amd64.deb. Its dependencies are the
# Debian packages of the libraries heed links (dpkg-shlibdeps finds them), OpenBLAS's OpenMP
# variant by name (heed runs it through its RPATH, whichever variant the system's
# alternative picks; dpkg-shlibdeps names only the virtual libopenblas0), and the fonts the
# pictures are drawn with.
set(CPACK_PACKAGE_NAME heed)
set(CPACK_PACKAGE_VENDOR "the heed developers")
set(CPACK_PACKAGE_CONTACT "heed developers <heed@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "train attention-based sequence models, run them, and see what they attend to")
set(CPACK_PACKAGE_DESCRIPTION
    "heed trains attention models (Bahdanau, Luong, no-attention; GRU and LSTM encoders) on \
your data with its own automatic differentiation, decodes with greedy and beam search, scores \
with BLEU, chrF, WER and AER, draws attention and saliency, and serves a model over HTTP. It \
brings the heed command and a C++ library (libheed, headers, CMake and pkg-config files).")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libopenblas0-openmp, fonts-dejavu-core")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openmpi-bin, bash-completion, fonts-wqy-microhei")
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
include(CPack)
