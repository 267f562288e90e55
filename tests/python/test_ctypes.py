# SPDX-License-Identifier: MIT
"""test_ctypes.py — libmodelio from Python through ctypes, the way users call it:
open a real vocabulary GGUF, read metadata (a string, a u32, the i-th string of
a 50,257-entry array), write a GGUF with the writer and read it back, encode and
decode q8_0, and check that a bad file gives a status and a message, not a crash.
usage: python3 test_ctypes.py path/to/libmodelio.so path/to/tests/data
Prints "N passed, N failed"; exit status 1 on any failure."""
import ctypes as C
import os
import struct
import sys
import tempfile

lib = C.CDLL(sys.argv[1])
data = sys.argv[2]
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, file=sys.stderr)


class MioStr(C.Structure):
    _fields_ = [("ptr", C.c_void_p), ("len", C.c_size_t)]

    def bytes(self):
        return C.string_at(self.ptr, self.len) if self.len else b""


MIO_OK, MIO_ERR_BAD_MAGIC, MIO_ERR_NON_FINITE = 0, 4, 35
lib.mio_last_error.restype = C.c_char_p
lib.mio_status_name.restype = C.c_char_p
lib.mio_gguf_open.argtypes = [C.c_char_p, C.c_uint32, C.POINTER(C.c_void_p)]
lib.mio_gguf_close.argtypes = [C.c_void_p]
lib.mio_gguf_kv_count.argtypes = [C.c_void_p]
lib.mio_gguf_kv_count.restype = C.c_int64
lib.mio_gguf_tensor_count.argtypes = [C.c_void_p]
lib.mio_gguf_tensor_count.restype = C.c_int64
lib.mio_gguf_find_key.argtypes = [C.c_void_p, C.c_char_p]
lib.mio_gguf_find_key.restype = C.c_int64
lib.mio_gguf_kv_str.argtypes = [C.c_void_p, C.c_int64, C.POINTER(MioStr)]
lib.mio_gguf_kv_u64.argtypes = [C.c_void_p, C.c_int64, C.POINTER(C.c_uint64)]
lib.mio_gguf_arr_str.argtypes = [C.c_void_p, C.c_int64, C.c_uint64, C.POINTER(MioStr)]
lib.mio_writer_new.argtypes = [C.c_uint32, C.POINTER(C.c_void_p)]
lib.mio_writer_free.argtypes = [C.c_void_p]
lib.mio_writer_set_str.argtypes = [C.c_void_p, C.c_char_p, C.c_char_p, C.c_size_t]
lib.mio_writer_set_u32.argtypes = [C.c_void_p, C.c_char_p, C.c_uint32]
lib.mio_writer_add_tensor.argtypes = [C.c_void_p, C.c_char_p, C.c_int, C.c_uint32, C.POINTER(C.c_int64),
                                      C.c_void_p, C.c_size_t]
lib.mio_writer_write_file.argtypes = [C.c_void_p, C.c_char_p]
lib.mio_encode_f32.argtypes = [C.c_int, C.POINTER(C.c_float), C.c_size_t, C.c_void_p, C.c_size_t]
lib.mio_decode_f32.argtypes = [C.c_int, C.c_void_p, C.c_size_t, C.POINTER(C.c_float), C.c_size_t]

# 1. a real vocabulary file
f = C.c_void_p()
st = lib.mio_gguf_open(os.path.join(data, "vocab-gpt-2.gguf").encode(), 0, C.byref(f))
check(st == MIO_OK, "open vocab-gpt-2.gguf: %s" % lib.mio_last_error())
check(lib.mio_gguf_kv_count(f) == 16, "16 metadata entries")
check(lib.mio_gguf_tensor_count(f) == 0, "no tensors")
s = MioStr()
k = lib.mio_gguf_find_key(f, b"general.architecture")
check(k >= 0 and lib.mio_gguf_kv_str(f, k, C.byref(s)) == MIO_OK and s.bytes() == b"gpt2", "architecture gpt2")
k = lib.mio_gguf_find_key(f, b"tokenizer.ggml.tokens")
check(lib.mio_gguf_arr_str(f, k, 50256, C.byref(s)) == MIO_OK and s.bytes() == b"<|endoftext|>", "token 50256")
check(lib.mio_gguf_arr_str(f, k, 50257, C.byref(s)) != MIO_OK, "token 50257 is out of range")
check(b"out of range" in lib.mio_last_error(), "message says out of range")
lib.mio_gguf_close(f)

# 2. write with the writer, read back
tmp = tempfile.mkdtemp()
out = os.path.join(tmp, "py.gguf").encode()
w = C.c_void_p()
check(lib.mio_writer_new(0, C.byref(w)) == MIO_OK, "writer")
lib.mio_writer_set_str(w, b"general.name", b"from python", 11)
lib.mio_writer_set_u32(w, b"test.answer", 42)
vals = (C.c_float * 4)(1.0, 2.0, 3.0, 4.0)
ne = (C.c_int64 * 2)(2, 2)
check(lib.mio_writer_add_tensor(w, b"t.weight", 0, 2, ne, vals, 16) == MIO_OK, "add_tensor")
check(lib.mio_writer_write_file(w, out) == MIO_OK, "write_file")
lib.mio_writer_free(w)
raw = open(out, "rb").read()
check(raw[:4] == b"GGUF" and struct.unpack("<I", raw[4:8])[0] == 3, "magic and version 3")
check(len(raw) % 32 == 0 and raw[-32:-16] == struct.pack("<4f", 1, 2, 3, 4) and raw[-16:] == bytes(16),
      "16 data bytes at the end, then zero padding to 32")
f = C.c_void_p()
check(lib.mio_gguf_open(out, 0, C.byref(f)) == MIO_OK, "reopen")
v = C.c_uint64()
check(lib.mio_gguf_kv_u64(f, lib.mio_gguf_find_key(f, b"test.answer"), C.byref(v)) == MIO_OK and v.value == 42,
      "u32 42 widened to u64")
lib.mio_gguf_close(f)
os.unlink(out)
os.rmdir(tmp)

# 3. q8_0 round trip (type code 8: 32 values -> 34 bytes)
x = (C.c_float * 32)(*[i / 8.0 - 2.0 for i in range(32)])
blk = (C.c_uint8 * 34)()
check(lib.mio_encode_f32(8, x, 32, blk, 34) == MIO_OK, "encode q8_0")
y = (C.c_float * 32)()
check(lib.mio_decode_f32(8, blk, 34, y, 32) == MIO_OK, "decode q8_0")
d = struct.unpack("<e", bytes(blk[0:2]))[0]
check(abs(d - 2.0 / 127) < 1e-4, "q8_0 scale = max|x| / 127")
check(max(abs(a - b) for a, b in zip(x, y)) <= d / 2 + 1e-6, "within half a step")
x[5] = float("nan")
check(lib.mio_encode_f32(8, x, 32, blk, 34) == MIO_ERR_NON_FINITE, "NaN refused")
check(b"element 5 is NaN" in lib.mio_last_error(), "message names element 5")

# 4. a bad file: status + message, no crash
tmp = tempfile.NamedTemporaryFile(delete=False, suffix=".gguf")
tmp.write(b"NOPE" + bytes(60))
tmp.close()
f = C.c_void_p()
st = lib.mio_gguf_open(tmp.name.encode(), 0, C.byref(f))
os.unlink(tmp.name)
check(st == MIO_ERR_BAD_MAGIC and lib.mio_status_name(st) == b"MIO_ERR_BAD_MAGIC", "bad magic status")
check(b"not a GGUF file" in lib.mio_last_error(), "bad magic message")

# 5. GGUF -> safetensors -> GGUF through ctypes (params NULL = defaults): the same bytes
lib.mio_gguf_to_st.argtypes = [C.c_char_p, C.c_char_p, C.c_void_p]
lib.mio_st_to_gguf.argtypes = [C.c_char_p, C.c_char_p, C.c_void_p]
d = tempfile.mkdtemp()
src = os.path.join(data, "vocab-llama-spm.gguf").encode()
st_path, back = os.path.join(d, "v.safetensors").encode(), os.path.join(d, "v.gguf").encode()
check(lib.mio_gguf_to_st(src, st_path, None) == MIO_OK, "GGUF -> safetensors")
check(lib.mio_st_to_gguf(st_path, back, None) == MIO_OK, "safetensors -> GGUF")
check(open(src, "rb").read() == open(back, "rb").read(), "the round trip is byte-identical")
check(lib.mio_st_to_gguf(st_path, st_path, None) == 3 and b"is one of the input files" in lib.mio_last_error(),
      "the input is not overwritten")
for n in os.listdir(d):
    os.unlink(os.path.join(d, n))
os.rmdir(d)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
