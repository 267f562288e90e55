# SPDX-License-Identifier: MIT
# Project-wide warning set; -Werror when MIO_WERROR is on (CI turns it on).
function(mio_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wno-sign-conversion -Wstrict-prototypes -Wmissing-prototypes)
  if(MIO_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
