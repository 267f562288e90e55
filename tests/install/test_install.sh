#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_install.sh — the used-by paths as a user outside the project walks them:
# cmake --install into a temporary prefix (and a DESTDIR staging), then
#   - the installed tools run from the prefix with no environment variables
#     (RUNPATH $ORIGIN/../lib),
#   - a C program built with `pkg-config --cflags --libs modelio`,
#   - the same linked against libmodelio.a with `pkg-config --static`,
#   - a CMake project using find_package(modelio) (shared and static targets),
# each run on a real corpus file; then the prefix is moved and the pkg-config
# build and the tools still work (relocatable).
# Usage: test_install.sh BUILD_DIR SOURCE_DIR TEST_DATA_DIR
set -u
BUILD=$1 SRC=$2 DATA=$3
W=$PWD/install_work
. "$SRC/tests/tools/lib.sh"
FILE=$DATA/vocab-gpt-2.gguf
WANT="version=0.1.0 kv=16 tensors=0 arch=gpt2"
P=$W/prefix

expect_rc 0 cmake --install "$BUILD" --prefix "$P"
libdir=$(cd "$P" && ls -d lib lib64 lib/* 2>/dev/null | while read -r d; do [ -e "$P/$d/libmodelio.so" ] && echo "$d"; done | head -1)
check '[ -n "$libdir" ]'
for f in "$libdir/libmodelio.so.0.1.0" "$libdir/libmodelio.so.0" "$libdir/libmodelio.so" "$libdir/libmodelio.a" \
         include/modelio.h include/modelio_inspect.h bin/mio-inspect bin/mio-transcode bin/mio-export-gguf bin/mio-quantize \
         share/man/man1/mio-inspect.1 share/man/man1/mio-transcode.1 "$libdir/pkgconfig/modelio.pc" \
         "$libdir/cmake/modelio/modelioConfig.cmake" "$libdir/cmake/modelio/modelioConfigVersion.cmake" \
         share/doc/libmodelio/LICENSE; do
  check "[ -e '$P/$f' ]"
done
check '[ "$(readlink "$P/$libdir/libmodelio.so.0")" = libmodelio.so.0.1.0 ]'
check 'grep -q "MIT License" "$P/share/doc/libmodelio/LICENSE"'
check 'grep -q "^prefix=\${pcfiledir}/" "$P/$libdir/pkgconfig/modelio.pc"'
# DESTDIR staging lands under the stage directory
DESTDIR=$W/stage expect_rc 0 cmake --install "$BUILD" --prefix /opt/modelio
check '[ -e "$W/stage/opt/modelio/$libdir/libmodelio.so.0.1.0" ]'

# the tools run from the prefix: RUNPATH finds the library
check 'readelf -d "$P/bin/mio-inspect" | grep -q "RUNPATH.*\$ORIGIN/../$libdir"'
expect_rc 0 env -u LD_LIBRARY_PATH "$P/bin/mio-inspect" "$FILE"
check 'grep -q "^kv count:      16$" out.txt'
expect_rc 0 env -u LD_LIBRARY_PATH "$P/bin/mio-transcode" "$FILE" tool.safetensors
for t in mio-inspect mio-transcode mio-export-gguf mio-quantize; do
  expect_rc 0 env -u LD_LIBRARY_PATH "$P/bin/$t" --version
  check "[ \"\$(cat out.txt)\" = '$t (libmodelio) 0.1.0' ]"
done

# pkg-config, shared
export PKG_CONFIG_PATH=$P/$libdir/pkgconfig
check '[ "$(pkg-config --modversion modelio)" = 0.1.0 ]'
expect_rc 0 cc -o app_shared "$SRC/tests/install/app.c" $(pkg-config --cflags --libs modelio)
expect_rc 0 env LD_LIBRARY_PATH="$P/$libdir" ./app_shared "$FILE"
check '[ "$(cat out.txt)" = "$WANT" ]'
# pkg-config --static: the archive (-l:libmodelio.a picks it over the .so) plus Libs.private
static_libs=$(pkg-config --static --libs modelio)
check '[[ "$static_libs" == *"-lmodelio -lpthread -lm"* && "$static_libs" != *"-lcjson"* && "$static_libs" != *"-lxxhash"* ]]'
expect_rc 0 cc -o app_static "$SRC/tests/install/app.c" $(pkg-config --cflags modelio) ${static_libs/-lmodelio/-l:libmodelio.a}
check '! readelf -d app_static | grep -q "libmodelio"'
expect_rc 0 env -u LD_LIBRARY_PATH ./app_static "$FILE"
check '[ "$(cat out.txt)" = "$WANT" ]'

# CMake: find_package(modelio) — both targets
mkdir -p consumer && cp "$SRC/tests/install/app.c" consumer/ && cp "$SRC/tests/install/CMakeLists.consumer.txt" consumer/CMakeLists.txt
expect_rc 0 cmake -S consumer -B consumer/build -DCMAKE_PREFIX_PATH="$P"
expect_rc 0 cmake --build consumer/build
expect_rc 0 env LD_LIBRARY_PATH="$P/$libdir" consumer/build/app_cmake_shared "$FILE"
check '[ "$(cat out.txt)" = "$WANT" ]'
expect_rc 0 consumer/build/app_cmake_static "$FILE"
check '[ "$(cat out.txt)" = "$WANT" ]'
check '! readelf -d consumer/build/app_cmake_static | grep -q "libmodelio"'

# relocatable: move the prefix; pkg-config and the tools follow
mv "$P" "$W/moved"
P=$W/moved
export PKG_CONFIG_PATH=$P/$libdir/pkgconfig
expect_rc 0 cc -o app_moved "$SRC/tests/install/app.c" $(pkg-config --cflags --libs modelio)
expect_rc 0 env LD_LIBRARY_PATH="$P/$libdir" ./app_moved "$FILE"
check '[ "$(cat out.txt)" = "$WANT" ]'
expect_rc 0 env -u LD_LIBRARY_PATH "$P/bin/mio-inspect" "$FILE"
finish
