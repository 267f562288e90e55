# SPDX-License-Identifier: MIT
"""test_package.py — the `modelio` Python package (python/) against the real
upstream packages (run with the python of scripts/fetch-py-peers.sh's venv:
safetensors 0.8.0, gguf 0.19.0, numpy):

- modelio.safetensors vs safetensors / safetensors.numpy: every golden file and
  every hostile case gives the same keys, metadata, arrays (dtype, shape,
  bytes) or the same refusal; slices; files saved by each load in the other,
  byte-identical where upstream is deterministic; zero-copy views and their
  lifetime; use after close.
- modelio.gguf vs gguf-py: GGUFReader agrees on every field (types, values)
  and tensor (name, type, shape, sizes, offset, data) for the vocabulary
  files, a file our GGUFWriter wrote and one gguf-py's GGUFWriter wrote; both
  writers give the same bytes for the same calls.
- modelio.quantize / dequantize vs gguf.quants (q8_0 exact both ways);
  quantize_model and convert against what gguf-py reads back.
- errors: status, name and message; pip install of ./python, bundling, and
  the library search order.

usage: MODELIO_LIBRARY=libmodelio.so PYTHONPATH=python test_package.py DATA_DIR
"""
import glob
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import gguf
import safetensors
import safetensors.numpy as up_np
from safetensors import safe_open as up_safe_open

import modelio
from modelio import safetensors as me_st
from modelio import gguf as me_gguf

DATA = sys.argv.pop(1) if len(sys.argv) > 1 else os.environ.get("MIO_TEST_DATA", "tests/data")
REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
GOLDEN = sorted(glob.glob(os.path.join(DATA, "safetensors", "golden", "*.safetensors")))
CASES = sorted(glob.glob(os.path.join(DATA, "safetensors", "cases", "*.safetensors")))
VOCABS = sorted(glob.glob(os.path.join(DATA, "vocab-*.gguf")))
QT = gguf.GGMLQuantizationType


def _try(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - we compare what each side raises
        return ("err", e)


def read(path):
    with open(path, "rb") as fh:
        return fh.read()


def same_array(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


class Tmp(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mio_pkg_")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def p(self, name):
        return os.path.join(self.dir, name)


# --------------------------------------------------------------------------- safetensors
class SafetensorsRead(unittest.TestCase):
    def test_corpus_present(self):
        self.assertEqual(len(GOLDEN), 8, GOLDEN)
        self.assertEqual(len(CASES), 27, CASES)

    def compare_open(self, path):
        with up_safe_open(path, framework="np") as u, me_st.safe_open(path, framework="np") as m:
            self.assertEqual(m.keys(), u.keys(), path)
            self.assertEqual(m.offset_keys(), u.offset_keys(), path)
            self.assertEqual(m.metadata(), u.metadata(), path)
            for k in u.keys():
                ru, rm = _try(lambda: u.get_tensor(k)), _try(lambda: m.get_tensor(k))
                self.assertEqual(ru[0], rm[0], "%s %s: upstream %r, ours %r" % (path, k, ru[1], rm[1]))
                if ru[0] == "ok":
                    self.assertTrue(same_array(ru[1], rm[1]), "%s %s" % (path, k))
                else:
                    # same refusal: the same Python exception type (TypeError for BF16,
                    # AttributeError for F8/F4), or a modelio.Error where upstream's is
                    # its own SafetensorError (F6)
                    if isinstance(ru[1], safetensors.SafetensorError):
                        self.assertIsInstance(rm[1], modelio.UnsupportedError)
                        self.assertEqual(str(ru[1]), rm[1].message)
                    else:
                        self.assertIs(type(rm[1]), type(ru[1]), "%s %s" % (path, k))
                        self.assertEqual(str(rm[1]), str(ru[1]))

    def compare_load_file(self, path):
        ru, rm = _try(lambda: up_np.load_file(path)), _try(lambda: me_st.load_file(path))
        self.assertEqual(ru[0], rm[0], "%s: upstream %r, ours %r" % (path, ru[1], rm[1]))
        if ru[0] == "ok":
            self.assertEqual(sorted(ru[1]), sorted(rm[1]))
            for k in ru[1]:
                self.assertTrue(same_array(ru[1][k], rm[1][k]), "%s %s" % (path, k))
        else:
            self.assertIs(type(rm[1]), type(ru[1]))
        data = read(path)
        bu, bm = _try(lambda: up_np.load(data)), _try(lambda: me_st.load(data))
        self.assertEqual(bu[0], bm[0], "%s load(bytes): upstream %r, ours %r" % (path, bu[1], bm[1]))
        if bu[0] == "ok":
            for k in bu[1]:
                self.assertTrue(same_array(bu[1][k], bm[1][k]), "%s %s" % (path, k))

    def test_golden(self):
        for path in GOLDEN:
            with self.subTest(path=os.path.basename(path)):
                self.compare_open(path)
                self.compare_load_file(path)

    def test_bf16_and_f8_refused_as_upstream(self):
        # upstream's numpy framework: np.dtype("bfloat16") / getattr(np, "float8_e4m3fn")
        p = os.path.join(DATA, "safetensors", "golden", "all_dtypes.safetensors")
        with me_st.safe_open(p, framework="np") as f:
            with self.assertRaisesRegex(TypeError, "bfloat16"):
                f.get_tensor("t_bf16")
            with self.assertRaisesRegex(AttributeError, "float8_e4m3fn"):
                f.get_tensor("t_f8_e4m3")
            with self.assertRaisesRegex(modelio.UnsupportedError, "Dtype not understood: F6_E2M3"):
                f.get_tensor("t_f6_e2m3")
            self.assertEqual(f.get_slice("t_bf16").get_dtype(), "BF16")
            self.assertEqual(f.get_slice("t_bf16").get_shape(), [2])

    def test_hostile_cases(self):
        """Every case upstream refuses, ours refuses too; every case upstream
        accepts reads the same, except the two duplicate-key files the library
        refuses on purpose (docs/SAFETENSORS.md: upstream silently keeps the
        last value)."""
        verdicts = {}
        with open(os.path.join(DATA, "safetensors", "cases", "VERDICTS.tsv")) as fh:
            for line in fh:
                name, v = line.rstrip("\n").split("\t", 1)
                verdicts[name] = v.split(" ", 1)[0]
        stricter = {"dup_key_inside_metadata": "MIO_ERR_INVALID_METADATA",
                    "dup_tensor_name_same_range": "MIO_ERR_DUPLICATE_TENSOR"}
        refused = 0
        for path in CASES:
            name = os.path.basename(path)[:-len(".safetensors")]
            with self.subTest(case=name):
                ru = _try(lambda: up_safe_open(path, framework="np").keys())
                rm = _try(lambda: me_st.safe_open(path, framework="np").keys())
                self.assertEqual(ru[0], "ok" if verdicts[name] == "OK" else "err", name)
                if name in stricter:
                    self.assertEqual(ru[0], "ok")
                    self.assertEqual(rm[0], "err")
                    self.assertEqual(rm[1].status_name, stricter[name])
                    self.assertIn("twice", rm[1].message)
                    continue
                self.assertEqual(rm[0], ru[0], "%s: upstream %r, ours %r" % (name, ru[1], rm[1]))
                if rm[0] == "err":
                    refused += 1
                    self.assertIsInstance(rm[1], modelio.FormatError)
                    self.assertTrue(rm[1].status_name.startswith("MIO_ERR_"))
                    self.assertTrue(rm[1].message)
                else:
                    self.compare_open(path)
                    self.compare_load_file(path)
        self.assertEqual(refused, 21)

    def test_refusal_statuses(self):
        d = os.path.join(DATA, "safetensors", "cases")
        for case, status, text in (("too_small_7bytes", "MIO_ERR_HEADER_TOO_SMALL", "file has 7 bytes"),
                                   ("too_large_1e8p1", "MIO_ERR_HEADER_TOO_LARGE", "100000001"),
                                   ("json_bad_dtype", "MIO_ERR_INVALID_JSON", "F33"),
                                   ("offset_end_lt_start", "MIO_ERR_INVALID_OFFSET", "'b'"),
                                   ("incomplete_trailing_byte", "MIO_ERR_INCOMPLETE_BUFFER", "")):
            with self.subTest(case=case):
                with self.assertRaises(modelio.FormatError) as cm:
                    me_st.load_file(os.path.join(d, case + ".safetensors"))
                self.assertEqual(cm.exception.status_name, status)
                self.assertIn(text, cm.exception.message)
                self.assertTrue(cm.exception.message.startswith(os.path.join(d, case + ".safetensors: ")))
                self.assertIsInstance(cm.exception, ValueError)
                self.assertIn(status, str(cm.exception))

    def test_slices(self):
        p = os.path.join(DATA, "safetensors", "golden", "three_dtypes.safetensors")
        ok_keys = [np.s_[0:1], np.s_[1], np.s_[:, 1], np.s_[...], np.s_[0:2:2], np.s_[1:, :1], np.s_[0:0],
                   np.s_[..., 1], np.s_[1, ...], np.s_[0, 1], np.s_[:]]
        bad_keys = [np.s_[5:9], np.s_[0:5], np.s_[2], np.s_[2:], np.s_[:, 2], np.s_[:, 0:9], np.s_[0, 0, 0],
                    np.s_[None]]
        with up_safe_open(p, framework="np") as u, me_st.safe_open(p, framework="np") as m:
            su, sm = u.get_slice("a_f32"), m.get_slice("a_f32")
            for k in ok_keys:
                a, b = su[k], sm[k]
                self.assertEqual(np.shape(a), np.shape(b), "%r" % (k,))
                self.assertEqual(np.asarray(a).tobytes(), np.asarray(b).tobytes(), "%r" % (k,))
            for k in bad_keys:
                self.assertRaises(safetensors.SafetensorError, lambda: su[k])
                with self.assertRaises(modelio.InvalidArgumentError, msg="%r" % (k,)) as cm:
                    sm[k]
                self.assertTrue(cm.exception.message)
            self.assertEqual(sm.get_shape(), su.get_shape())
            self.assertEqual(sm.get_dtype(), su.get_dtype())
            self.assertEqual(m.get_slice("c_i64")[0:1].tolist(), u.get_slice("c_i64")[0:1].tolist())
            with self.assertRaisesRegex(modelio.InvalidArgumentError, "Slice step must be a positive integer, got -1"):
                sm[::-1]

    def test_zero_copy_and_lifetime(self):
        d = tempfile.mkdtemp()
        try:
            p = os.path.join(d, "z.safetensors")
            up_np.save_file({"a": np.array([[1, 2], [3, 4]], np.float32), "b": np.arange(3, dtype=np.int64)}, p)
            before = read(p)
            f = me_st.safe_open(p, framework="np")
            a = f.get_tensor("a")
            self.assertFalse(a.flags.owndata)                      # a view, not a copy
            self.assertEqual(a.tolist(), [[1.0, 2.0], [3.0, 4.0]])
            f.close()
            self.assertEqual(a.tolist(), [[1.0, 2.0], [3.0, 4.0]])   # valid after close
            a[0, 0] = 42.0                                          # writeable, copy-on-write
            self.assertEqual(read(p), before)          # the file is untouched
            t = me_st.load_file(p)
            self.assertEqual(t["a"][0, 0], 1.0)                    # a fresh mapping per load
            self.assertTrue(t["a"].flags.writeable)
            del a, t
        finally:
            shutil.rmtree(d)

    def test_use_after_close(self):
        p = os.path.join(DATA, "safetensors", "golden", "three_dtypes.safetensors")
        with me_st.safe_open(p, framework="np") as f:
            s = f.get_slice("a_f32")
        for call in (f.keys, f.metadata, lambda: f.get_tensor("a_f32"), lambda: s[0], f.get_tensors,
                     lambda: f.get_slice("a_f32")):
            with self.assertRaises(modelio.ClosedError) as cm:
                call()
            self.assertEqual(cm.exception.status_name, "MIO_ERR_STATE")
            self.assertIn("is closed", cm.exception.message)
        f.close()   # twice is fine

    def test_errors(self):
        with self.assertRaises(modelio.FileError) as cm:
            me_st.safe_open("/nonexistent/x.safetensors", framework="np")
        self.assertIsInstance(cm.exception, OSError)
        p = os.path.join(DATA, "safetensors", "golden", "three_dtypes.safetensors")
        with me_st.safe_open(p, framework="np") as f:
            with self.assertRaises(modelio.NotFoundError) as cm:
                f.get_tensor("nope")
            self.assertIn("nope", cm.exception.message)
            self.assertIsInstance(cm.exception, KeyError)
        with self.assertRaisesRegex(modelio.InvalidArgumentError, "framework 'pt'"):
            me_st.safe_open(p, framework="pt")


class SafetensorsWrite(Tmp):
    def tensors(self):
        rng = np.random.default_rng(7)
        return {"w.f32": rng.standard_normal((3, 5)).astype(np.float32),
                "w.f16": rng.standard_normal((4,)).astype(np.float16),
                "w.f64": np.array([1e300, -0.0]),
                "i.i64": np.arange(6, dtype=np.int64).reshape(2, 3),
                "i.u8": np.arange(7, dtype=np.uint8),
                "i.i16": np.array([-1, 2], np.int16),
                "i.u32": np.array([7], np.uint32),
                "b.bool": np.array([True, False, True]),
                "c.c64": np.array([1 + 2j], np.complex64),
                "s.scalar": np.array(3.5, np.float32),
                "e.empty": np.zeros((0, 4), np.float32)}

    def test_same_bytes_as_upstream(self):
        t = self.tensors()
        for meta in (None, {"format": "np"}):
            with self.subTest(meta=meta):
                up_np.save_file(t, self.p("up.st"), metadata=meta)
                me_st.save_file(t, self.p("me.st"), metadata=meta)
                self.assertEqual(read(self.p("me.st")), read(self.p("up.st")))
                self.assertEqual(me_st.save(t, metadata=meta), up_np.save(t, metadata=meta))

    def test_golden_content_saved_by_both(self):
        """Each golden file upstream's numpy framework can load (not the BF16/F8
        ones) is saved again by both writers: the same bytes as each other and
        as the golden file itself (all are upstream's canonical form)."""
        saved = 0
        for path in GOLDEN:
            with up_safe_open(path, framework="np") as f:
                meta = f.metadata()
            r = _try(lambda: up_np.load_file(path))
            if r[0] != "ok":
                continue
            d = r[1]
            up_np.save_file(d, self.p("u.st"), metadata=meta)
            me_st.save_file(d, self.p("m.st"), metadata=meta)
            self.assertEqual(read(self.p("m.st")), read(self.p("u.st")), path)
            self.assertEqual(read(self.p("m.st")), read(path), path)
            for other, loader in ((self.p("u.st"), me_st.load_file), (self.p("m.st"), up_np.load_file)):
                back = loader(other)
                self.assertEqual(sorted(back), sorted(d))
                for k in d:
                    self.assertTrue(same_array(back[k], d[k]), "%s %s" % (path, k))
            saved += 1
        self.assertEqual(saved, 6)

    def test_each_loads_the_others(self):
        t = self.tensors()
        meta = {"format": "np", "a": "1", "b": "ünïcode"}   # upstream's key order is random here
        up_np.save_file(t, self.p("up.st"), metadata=meta)
        me_st.save_file(t, self.p("me.st"), metadata=meta)
        for path in (self.p("up.st"), self.p("me.st")):
            for loader in (up_np.load_file, me_st.load_file):
                d = loader(path)
                self.assertEqual(sorted(d), sorted(t))
                for k in t:
                    self.assertTrue(same_array(d[k], t[k]), "%s %s %s" % (path, loader.__module__, k))
            with up_safe_open(path, framework="np") as u, me_st.safe_open(path, framework="np") as m:
                self.assertEqual(u.metadata(), meta)
                self.assertEqual(m.metadata(), meta)
        self.assertEqual(os.path.getsize(self.p("up.st")), os.path.getsize(self.p("me.st")))

    def test_non_contiguous_and_big_endian(self):
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        me_st.save_file({"t": a.T, "be": np.array([1, 2], dtype=">i4")}, self.p("nc.st"))
        up_np.save_file({"t": np.ascontiguousarray(a.T), "be": np.array([1, 2], dtype="<i4")}, self.p("c.st"))
        self.assertEqual(read(self.p("nc.st")), read(self.p("c.st")))

    def test_write_errors(self):
        with self.assertRaisesRegex(modelio.UnsupportedError, "float128|longdouble|complex128"):
            me_st.save_file({"x": np.zeros(2, np.complex128)}, self.p("x.st"))
        with self.assertRaises(modelio.Error) as cm:
            me_st.save_file({"": np.zeros(2, np.float32)}, self.p("x.st"))
        self.assertEqual(cm.exception.status_name, "MIO_ERR_INVALID_ARG")
        self.assertFalse(os.path.exists(self.p("x.st")))
        with self.assertRaises(modelio.FileError):
            me_st.save_file({"x": np.zeros(2, np.float32)}, self.p("no/such/dir/x.st"))
        with self.assertRaisesRegex(modelio.InvalidArgumentError, "NUL"):
            me_st.save_file({"a\0b": np.zeros(2, np.float32)}, self.p("x.st"))
        with self.assertRaisesRegex(modelio.InvalidArgumentError, "metadata must map str to str"):
            me_st.save_file({"a": np.zeros(2, np.float32)}, self.p("x.st"), metadata={"k": 1})
        self.assertFalse(os.path.exists(self.p("x.st")))

    def test_sharded_index(self):
        up_np.save_file({"a": np.arange(4, dtype=np.float32)}, self.p("model-00001-of-00002.safetensors"))
        up_np.save_file({"b": np.arange(3, dtype=np.int64), "c": np.ones((2, 2), np.float16)},
                        self.p("model-00002-of-00002.safetensors"))
        import json
        with open(self.p("model.safetensors.index.json"), "w") as fh:
            json.dump({"metadata": {"total_size": 48},
                       "weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors",
                                      "c": "model-00002-of-00002.safetensors"}}, fh)
        with me_st.safe_open(self.p("model.safetensors.index.json"), framework="np") as f:
            self.assertEqual(f.keys(), ["a", "b", "c"])
            self.assertEqual(f.get_tensor("b").tolist(), [0, 1, 2])
            self.assertEqual(f.get_slice("c")[1].tolist(), [1.0, 1.0])
        d = me_st.load_file(self.p("model.safetensors.index.json"))
        self.assertEqual(d["a"].tolist(), [0.0, 1.0, 2.0, 3.0])
        self.assertEqual(d["c"].dtype, np.float16)

    def test_empty_and_unicode(self):
        for t in ({}, {"ünï.𝔁": np.arange(3, dtype=np.int32), "b": np.zeros((2, 0), np.float16)}):
            me_st.save_file(t, self.p("m.st"))
            up_np.save_file(t, self.p("u.st"))
            self.assertEqual(read(self.p("m.st")), read(self.p("u.st")))
            self.assertEqual(me_st.save(t), up_np.save(t))
            d = me_st.load_file(self.p("u.st"))
            self.assertEqual(sorted(d), sorted(t))
            for k in t:
                self.assertTrue(same_array(d[k], t[k]))


# --------------------------------------------------------------------------- GGUF
def fill_writer(w):
    """The same calls for gguf-py's GGUFWriter and ours."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 64)).astype(np.float32)
    w.add_uint32("t.u32", 7)
    w.add_int8("t.i8", -3)
    w.add_uint8("t.u8", 255)
    w.add_uint16("t.u16", 65535)
    w.add_int16("t.i16", -1)
    w.add_int32("t.i32", -7)
    w.add_uint64("t.u64", 2 ** 63 + 5)
    w.add_int64("t.i64", -5)
    w.add_float32("t.f32", 0.1)
    w.add_float64("t.f64", 1e300)
    w.add_bool("t.bool", True)
    w.add_string("t.str", "héllo wörld")
    w.add_string("t.empty_str_skipped", "")
    w.add_array("t.arr_i32", [1, -2, 3])
    w.add_array("t.arr_f32", [1.5, 2.5])
    w.add_array("t.arr_str", ["x", "", "zz", "ünï"])
    w.add_array("t.arr_bool", [True, False])
    w.add_key_value("t.arr_u64", [1, 2 ** 64 - 1], gguf.GGUFValueType.ARRAY, sub_type=gguf.GGUFValueType.UINT64)
    w.add_array("t.empty_arr_skipped", [])
    w.add_uint32("t.u32", 8)    # replaces the value in place
    w.add_tensor("x.f32", x)
    w.add_tensor("x.f16", x.astype(np.float16))
    w.add_tensor("x.q8_0", gguf.quants.quantize(x, QT.Q8_0), raw_dtype=QT.Q8_0)
    w.add_tensor("x.bf16", gguf.quants.quantize(x, QT.BF16), raw_dtype=QT.BF16)
    w.add_tensor("x.i8", np.arange(5, dtype=np.int8))
    w.add_tensor("x.i32", np.arange(6, dtype=np.int32).reshape(2, 3))
    w.add_tensor("x.f64_3d", np.arange(24, dtype=np.float64).reshape(2, 3, 4))
    w.add_tensor("x.i64_4d", np.arange(16, dtype=np.int64).reshape(2, 2, 2, 2))


def write_with(cls, path):
    w = cls(path, "llama")
    fill_writer(w)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


class GGUFRead(Tmp):
    def compare(self, path):
        u = gguf.GGUFReader(path)
        m = me_gguf.GGUFReader(path)
        self.assertEqual(list(m.fields), list(u.fields), path)
        for k, fu in u.fields.items():
            fm = m.fields[k]
            self.assertEqual(fm.name, fu.name)
            self.assertEqual([int(t) for t in fm.types], [int(t) for t in fu.types], "%s %s" % (path, k))
            cu, cm = fu.contents(), fm.contents()
            self.assertEqual(type(cm), type(cu), "%s %s" % (path, k))
            self.assertEqual(cm, cu, "%s %s" % (path, k))
            if isinstance(cu, list) and len(cu) > 3:
                self.assertEqual(fm.contents(2), fu.contents(2))
                self.assertEqual(fm.contents(-1), fu.contents(-1))
                self.assertEqual(fm.contents(slice(1, 3)), fu.contents(slice(1, 3)))
                self.assertEqual(fm.contents(slice(0, None, 2)), fu.contents(slice(0, None, 2)))
        self.assertEqual(m.alignment, u.alignment)
        self.assertEqual(m.data_offset, u.data_offset)
        self.assertEqual(len(m.tensors), len(u.tensors))
        for tu, tm in zip(u.tensors, m.tensors):
            self.assertEqual(tm.name, tu.name)
            self.assertEqual(int(tm.tensor_type), int(tu.tensor_type))
            self.assertEqual(tm.tensor_type.name, tu.tensor_type.name)
            self.assertEqual(tm.shape.dtype, np.uint64)
            self.assertEqual(tm.shape.tolist(), tu.shape.tolist())
            self.assertEqual((tm.n_elements, tm.n_bytes, tm.data_offset), (tu.n_elements, tu.n_bytes, tu.data_offset))
            self.assertTrue(same_array(np.asarray(tm.data), np.asarray(tu.data)), "%s %s" % (path, tu.name))
        return u, m

    def test_vocabularies(self):
        self.assertEqual(len(VOCABS), 2)
        for p in VOCABS:
            with self.subTest(path=os.path.basename(p)):
                self.compare(p)

    def test_vocab_values(self):
        with me_gguf.GGUFReader(os.path.join(DATA, "vocab-gpt-2.gguf")) as r:
            f = r.fields["tokenizer.ggml.tokens"]
            self.assertEqual(len(f), 50257)
            self.assertEqual(f.contents(50256), "<|endoftext|>")
            self.assertEqual(f.contents(-1), "<|endoftext|>")
            with self.assertRaises(IndexError):
                f.contents(50257)
            self.assertEqual(r.fields["general.architecture"].contents(), "gpt2")
            self.assertEqual(r.fields["GGUF.kv_count"].contents(), 16)

    def test_writer_files_both_ways(self):
        write_with(gguf.GGUFWriter, self.p("up.gguf"))
        write_with(me_gguf.GGUFWriter, self.p("me.gguf"))
        # the same calls give the same bytes
        self.assertEqual(read(self.p("me.gguf")), read(self.p("up.gguf")))
        for p in (self.p("up.gguf"), self.p("me.gguf")):
            u, m = self.compare(p)
            self.assertNotIn("t.empty_str_skipped", m.fields)
            self.assertEqual(m.fields["t.u32"].contents(), 8)
            self.assertEqual(list(m.fields).index("t.u32"), 4)   # after the 3 GGUF.* and the architecture
            self.assertEqual(m.fields["t.u64"].contents(), 2 ** 63 + 5)
            self.assertEqual(m.fields["t.arr_u64"].contents(), [1, 2 ** 64 - 1])
            self.assertEqual(m.fields["t.str"].contents(), "héllo wörld")
            t = {x.name: x for x in m.tensors}
            self.assertEqual(t["x.q8_0"].data.shape, (4, 68))           # bytes: 2 blocks of 34 a row
            self.assertEqual(t["x.bf16"].data.dtype, np.uint8)          # bytes, as gguf-py
            self.assertEqual(t["x.f64_3d"].shape.tolist(), [4, 3, 2])   # ne order
            self.assertEqual(t["x.f64_3d"].data[1, 2, 3], 23.0)

    def test_nested_arrays_from_gguf_py(self):
        w = gguf.GGUFWriter(self.p("nest.gguf"), "x")
        w.add_array("n.int", [[1, 2], [3, 4, 5]])
        w.add_array("n.str", [["a", "b"], ["c"]])
        w.add_array("n.deep", [[[1.5], [2.5]], [[3.5]]])
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        u, m = self.compare(self.p("nest.gguf"))
        self.assertEqual(m.fields["n.int"].contents(), [1, 2, 3, 4, 5])      # flattened, as gguf-py
        self.assertEqual([t.name for t in m.fields["n.deep"].types], ["ARRAY", "ARRAY", "ARRAY", "FLOAT32"])
        self.assertEqual(m.fields["n.str"].contents(2), "c")
        with self.assertRaises(modelio.UnsupportedError):
            me_gguf.GGUFWriter(self.p("n2.gguf"), "x").add_array("n", [[1], [2]])

    def test_empty_file_same_bytes(self):
        for cls, name in ((gguf.GGUFWriter, "up0.gguf"), (me_gguf.GGUFWriter, "me0.gguf")):
            w = cls(self.p(name), "llama")
            w.add_name("nothing")
            w.write_header_to_file()
            w.write_kv_data_to_file()
            w.write_tensors_to_file()
            w.close()
        self.assertEqual(read(self.p("me0.gguf")), read(self.p("up0.gguf")))

    def test_streamed_tensor_info(self):
        a = np.arange(64, dtype=np.float32).reshape(2, 32)
        w = me_gguf.GGUFWriter(self.p("s.gguf"), "llama")
        w.add_tensor_info("a", a.shape, a.dtype, a.nbytes)
        w.add_tensor_info("q", (2, 34), np.uint8, 68, raw_dtype="q8_0")
        w.write_header_to_file()
        with self.assertRaises(modelio.StateError):
            w.write_tensors_to_file()          # no arrays were given
        w.write_tensor_data(a)
        w.write_tensor_data(modelio.quantize(a, "q8_0"))
        with self.assertRaises(modelio.StateError):
            w.write_tensor_data(a)             # one too many
        w.close()
        r = gguf.GGUFReader(self.p("s.gguf"))
        self.assertEqual(r.tensors[0].data.tolist(), a.tolist())
        self.assertEqual(r.tensors[1].tensor_type, QT.Q8_0)
        self.assertEqual(r.tensors[1].shape.tolist(), [32, 2])

    def test_unfinished_write_leaves_nothing(self):
        with self.assertRaises(ZeroDivisionError):
            with me_gguf.GGUFWriter(self.p("u.gguf"), "llama") as w:
                w.add_tensor("a", np.zeros(4, np.float32))
                w.write_header_to_file()
                1 / 0
        self.assertEqual(os.listdir(self.dir), [])

    def test_reader_errors_and_close(self):
        bad = self.p("bad.gguf")
        with open(bad, "wb") as fh:
            fh.write(b"NOPE" + bytes(60))
        with self.assertRaises(modelio.FormatError) as cm:
            me_gguf.GGUFReader(bad)
        self.assertEqual(cm.exception.status, 4)
        self.assertEqual(cm.exception.status_name, "MIO_ERR_BAD_MAGIC")
        self.assertIn("not a GGUF file", cm.exception.message)
        self.assertIn(bad, cm.exception.message)
        with open(bad, "wb") as fh:
            fh.write(read(VOCABS[0])[:5000])
        with self.assertRaises(modelio.FormatError) as cm:
            me_gguf.GGUFReader(bad)
        self.assertEqual(cm.exception.status_name, "MIO_ERR_TRUNCATED")
        with self.assertRaises(modelio.FileError):
            me_gguf.GGUFReader(self.p("missing.gguf"))
        write_with(me_gguf.GGUFWriter, self.p("me.gguf"))
        r = me_gguf.GGUFReader(self.p("me.gguf"))
        data = r.tensors[0].data
        f = r.fields["t.arr_str"]
        r.close()
        with self.assertRaises(modelio.ClosedError):
            f.contents()
        with self.assertRaises(modelio.ClosedError):
            f.contents(1)
        self.assertEqual(r.fields["GGUF.version"].contents(), 3)   # pseudo-fields are plain values
        self.assertEqual(data.shape, (4, 64))
        self.assertTrue(np.isfinite(data).all())                    # the view outlives the handle
        with self.assertRaises(ValueError):
            data[0, 0] = 1.0                                        # mode "r": read-only, as gguf-py

    def test_writer_errors(self):
        w = me_gguf.GGUFWriter(self.p("e.gguf"), "llama")
        with self.assertRaises(modelio.InvalidArgumentError) as cm:
            w.add_tensor("u16", np.zeros(2, np.uint16))
        self.assertIn("Only F16, F32", cm.exception.message)
        w.add_tensor("a", np.zeros(4, np.float32))
        with self.assertRaises(modelio.Error) as cm:
            w.add_tensor("a", np.zeros(4, np.float32))
        self.assertEqual(cm.exception.status_name, "MIO_ERR_DUPLICATE_TENSOR")
        with self.assertRaises(modelio.Error) as cm:
            w.add_uint32("general.alignment", 3)
        self.assertEqual(cm.exception.status_name, "MIO_ERR_INVALID_ALIGNMENT")
        with self.assertRaises(modelio.InvalidArgumentError):
            w.add_tensor("q", np.zeros((1, 33), np.uint8), raw_dtype=QT.Q8_0)   # 33 bytes: not whole blocks
        w.close()
        with self.assertRaises(modelio.ClosedError):
            w.add_uint32("x", 1)
        self.assertFalse(os.path.exists(self.p("e.gguf")))   # nothing was begun


# --------------------------------------------------------------------------- codecs, model tools
class Codecs(Tmp):
    def test_q8_0_exact(self):
        rng = np.random.default_rng(11)
        x = (rng.standard_normal((16, 256)) * 3).astype(np.float32)
        ours = modelio.quantize(x, "q8_0")
        theirs = gguf.quants.quantize(x, QT.Q8_0)
        self.assertEqual(ours.dtype, np.uint8)
        self.assertEqual(ours.shape, theirs.shape)
        self.assertEqual(ours.tobytes(), theirs.tobytes())
        y = modelio.dequantize(ours, QT.Q8_0)
        self.assertTrue(same_array(y, gguf.quants.dequantize(theirs, QT.Q8_0)))
        self.assertEqual(modelio.dequantize(ours.tobytes(), "Q8_0", x.shape).tobytes(), y.tobytes())

    def test_k_quant_decodes_as_gguf_py(self):
        rng = np.random.default_rng(12)
        x = rng.standard_normal((4, 512)).astype(np.float32)
        for name, qt in (("q4_k", QT.Q4_K), ("q6_k", QT.Q6_K), ("q4_0", QT.Q4_0)):
            raw = modelio.quantize(x, name)
            self.assertEqual(raw.shape, gguf.quants.quant_shape_to_byte_shape(x.shape, qt))
            ours, theirs = modelio.dequantize(raw, qt), gguf.quants.dequantize(raw, qt)
            self.assertEqual(ours.shape, x.shape)
            self.assertTrue(np.allclose(ours, theirs, rtol=1e-6, atol=1e-6), name)
            self.assertLess(float(np.abs(ours - x).max()), 0.6, name)

    def test_codec_errors(self):
        x = np.arange(32, dtype=np.float32)
        x[5] = np.nan
        with self.assertRaises(modelio.InvalidArgumentError) as cm:
            modelio.quantize(x, "q8_0")
        self.assertEqual(cm.exception.status_name, "MIO_ERR_NON_FINITE")
        self.assertIn("element 5 is NaN", cm.exception.message)
        with self.assertRaisesRegex(modelio.InvalidArgumentError, "not a multiple of the q8_0 block size 32"):
            modelio.quantize(np.zeros(33, np.float32), "q8_0")
        with self.assertRaisesRegex(modelio.InvalidArgumentError, "unknown ggml type name 'q9_z'"):
            modelio.quantize(np.zeros(32, np.float32), "q9_z")
        with self.assertRaises(modelio.Error) as cm:
            modelio.dequantize(bytes(33), "q8_0", (32,))
        self.assertEqual(cm.exception.status_name, "MIO_ERR_SIZE_MISMATCH")

    def make_model(self, path):
        rng = np.random.default_rng(5)
        w = gguf.GGUFWriter(path, "llama")
        w.add_block_count(1)
        w.add_tensor("token_embd.weight", rng.standard_normal((8, 256)).astype(np.float32))
        w.add_tensor("blk.0.attn_q.weight", rng.standard_normal((256, 256)).astype(np.float32))
        w.add_tensor("blk.0.attn_norm.weight", np.ones(256, np.float32))
        w.add_tensor("output.weight", rng.standard_normal((8, 256)).astype(np.float32))
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()

    def test_quantize_model_q8_0(self):
        src, out = self.p("m.gguf"), self.p("m-q8.gguf")
        self.make_model(src)
        plan = modelio.quantize_model(src, out, preset="Q8_0")
        self.assertEqual({d["name"]: d["out_type"] for d in plan},
                         {"token_embd.weight": QT.Q8_0, "blk.0.attn_q.weight": QT.Q8_0,
                          "blk.0.attn_norm.weight": QT.F32, "output.weight": QT.Q8_0})
        s = {t.name: t for t in gguf.GGUFReader(src).tensors}
        r = gguf.GGUFReader(out)
        self.assertEqual(r.fields["general.file_type"].contents(), 7)
        for t in r.tensors:
            if t.tensor_type == QT.Q8_0:
                want = gguf.quants.quantize(np.asarray(s[t.name].data), QT.Q8_0)
                self.assertEqual(t.data.tobytes(), want.tobytes(), t.name)
            else:
                self.assertEqual(t.data.tobytes(), s[t.name].data.tobytes(), t.name)
        dry = modelio.quantize_model(src, self.p("never.gguf"), preset="q4_k_m", dry_run=True)
        self.assertEqual(len(dry), 4)
        self.assertFalse(os.path.exists(self.p("never.gguf")))
        with self.assertRaisesRegex(modelio.InvalidArgumentError, "unknown preset 'q4kmx'"):
            modelio.quantize_model(src, out, preset="q4kmx")
        with self.assertRaises(modelio.CancelledError):
            modelio.quantize_model(src, self.p("c.gguf"), preset="Q8_0", progress=lambda *a: True)
        self.assertFalse(os.path.exists(self.p("c.gguf")))

    def test_quantize_model_same_file_as_tool(self):
        """llama-quantize's normalisation is the library's: an unsorted prune
        list with a duplicate and an upper-case pattern give mio-quantize's
        file byte for byte (both sort, de-duplicate and lower-case in
        mio_quantize), and that file is the hand-checked one."""
        src = self.p("blocks.gguf")
        rng = np.random.default_rng(11)
        w = gguf.GGUFWriter(src, "llama")
        w.add_block_count(5)
        v = [rng.standard_normal((4, 256)).astype(np.float32) for _ in range(5)]
        for b in range(5):
            w.add_tensor("blk.%d.attn_v.weight" % b, v[b])
            w.add_tensor("blk.%d.attn_norm.weight" % b, np.ones(256, np.float32))
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        modelio.quantize_model(src, self.p("py.gguf"), preset="Q8_0", prune_layers=[3, 1, 1],
                               tensor_types={"ATTN_V": "q4_0"}, kv_overrides=["x.n=int:-7", "x.s=str:a=b"])
        # blocks 1 and 3 dropped, 0 2 4 renumbered 0 1 2; attn_v q4_0 by the (lower-cased) pattern
        r = gguf.GGUFReader(self.p("py.gguf"))
        self.assertEqual([(t.name, t.tensor_type) for t in r.tensors],
                         [("blk.%d.%s.weight" % (b, n), QT.Q4_0 if n == "attn_v" else QT.F32)
                          for b in range(3) for n in ("attn_norm", "attn_v")])
        self.assertEqual(r.fields["llama.block_count"].contents(), 3)
        self.assertEqual(r.fields["x.n"].contents(), 7)   # llama.cpp writes an int override as u32 of |v|
        self.assertEqual(r.fields["x.s"].contents(), "a=b")
        got = {t.name: t for t in r.tensors}["blk.1.attn_v.weight"].data.tobytes()
        self.assertEqual(got, gguf.quants.quantize(v[2], QT.Q4_0).tobytes())   # the input's block 2
        with self.assertRaisesRegex(modelio.InvalidArgumentError, "unknown type 'u32' \\(one of int float bool str\\)"):
            modelio.quantize_model(src, self.p("never.gguf"), preset="Q8_0", kv_overrides=["x=u32:1"])
        self.assertFalse(os.path.exists(self.p("never.gguf")))
        tool = os.path.join(os.path.dirname(os.environ["MODELIO_LIBRARY"]), "..", "tools", "mio-quantize")
        if not os.path.exists(tool):
            self.skipTest("mio-quantize is not built")
        subprocess.run([tool, "--quiet", "--prune-layers", "3,1,1", "--tensor-type", "ATTN_V=q4_0",
                        "--override-kv", "x.n=int:-7", "--override-kv", "x.s=str:a=b", src, self.p("cli.gguf"), "Q8_0"],
                       check=True)
        self.assertEqual(read(self.p("cli.gguf")), read(self.p("py.gguf")))

    def make_hf(self, d, arch="LlamaForCausalLM"):
        """a one-layer checkpoint (hidden 256, 4 heads, 2 kv heads) with a
        5-token byte-level BPE tokenizer, saved by upstream safetensors"""
        os.makedirs(d)
        import json

        def dump(obj, name):
            with open(os.path.join(d, name), "w") as f:
                json.dump(obj, f)
        dump({"architectures": [arch], "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 1,
                   "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 5, "rms_norm_eps": 1e-5,
                   "rope_theta": 10000.0, "max_position_embeddings": 64}, "config.json")
        dump({"added_tokens": [], "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False,
                                                         "trim_offsets": True, "use_regex": True},
                   "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "\u0120": 3, "c": 4},
                             "merges": ["a b"]}}, "tokenizer.json")
        rng = np.random.default_rng(3)
        t = {"model.embed_tokens.weight": (5, 256), "lm_head.weight": (5, 256), "model.norm.weight": (256,)}
        pre = "model.layers.0."
        t.update({pre + "input_layernorm.weight": (256,), pre + "post_attention_layernorm.weight": (256,),
                  pre + "self_attn.q_proj.weight": (256, 256), pre + "self_attn.k_proj.weight": (128, 256),
                  pre + "self_attn.v_proj.weight": (128, 256), pre + "self_attn.o_proj.weight": (256, 256),
                  pre + "mlp.gate_proj.weight": (512, 256), pre + "mlp.up_proj.weight": (512, 256),
                  pre + "mlp.down_proj.weight": (256, 512)})
        arrays = {k: (rng.standard_normal(v) * 0.02).astype(np.float16) for k, v in t.items()}
        up_np.save_file(arrays, os.path.join(d, "model.safetensors"), metadata={"format": "pt"})
        return arrays

    def test_convert_hf(self):
        d = self.p("ck")
        src = self.make_hf(d)
        r = modelio.convert_hf(d, self.p("m-{ftype}.gguf"), "q8_0")
        self.assertEqual(r["written"], self.p("m-q8_0.gguf"))
        self.assertEqual(r["files"], [{"path": self.p("m-q8_0.gguf"), "n_tensors": 12, "tensor_bytes": r["files"][0]["tensor_bytes"]}])
        g = gguf.GGUFReader(r["written"])
        t = {x.name: x for x in g.tensors}
        # q: LlamaModel.permute, then gguf-py's own q8_0 quantizer
        q = src["model.layers.0.self_attn.q_proj.weight"].astype(np.float32)
        perm = q.reshape(4, 2, 256 // 4 // 2, 256).swapaxes(1, 2).reshape(q.shape)
        self.assertEqual(t["blk.0.attn_q.weight"].tensor_type, QT.Q8_0)
        self.assertEqual(t["blk.0.attn_q.weight"].data.tobytes(), gguf.quants.quantize(perm, QT.Q8_0).tobytes())
        k = src["model.layers.0.self_attn.k_proj.weight"].astype(np.float32)
        kperm = k.reshape(2, 2, 128 // 2 // 2, 256).swapaxes(1, 2).reshape(k.shape)
        self.assertEqual(t["blk.0.attn_k.weight"].data.tobytes(), gguf.quants.quantize(kperm, QT.Q8_0).tobytes())
        self.assertEqual(t["blk.0.attn_norm.weight"].tensor_type, QT.F32)
        self.assertEqual(g.fields["general.file_type"].contents(), 7)
        self.assertEqual(g.fields["tokenizer.ggml.model"].contents(), "gpt2")
        # the same bytes as the tool
        tool = os.path.join(os.path.dirname(os.environ["MODELIO_LIBRARY"]), "..", "tools", "mio-convert-hf")
        if os.path.exists(tool):
            subprocess.run([tool, "--quiet", d, "--outfile", self.p("cli.gguf"), "--outtype", "q8_0"], check=True)
            self.assertEqual(read(self.p("cli.gguf")), read(r["written"]))
        # auto over f16 weights is f16, verbatim
        r = modelio.convert_hf(d, self.p("a.gguf"))
        t = {x.name: x for x in gguf.GGUFReader(r["written"]).tensors}
        self.assertEqual(t["blk.0.ffn_up.weight"].data.tobytes(), src["model.layers.0.mlp.up_proj.weight"].tobytes())
        # one pass to a preset = converting then quantizing
        modelio.quantize_model(self.p("a.gguf"), self.p("two.gguf"), preset="Q4_K_M")
        modelio.convert_hf(d, self.p("one.gguf"), "Q4_K_M")
        self.assertEqual(read(self.p("one.gguf")), read(self.p("two.gguf")))
        # dry run: the plan, nothing written
        r = modelio.convert_hf(d, self.p("never.gguf"), dry_run=True)
        self.assertIsNone(r["written"])
        self.assertFalse(os.path.exists(self.p("never.gguf")))
        self.assertEqual([x["name"] for x in r["tensors"]][:2], ["output.weight", "token_embd.weight"])
        self.assertTrue(next(x for x in r["tensors"] if x["name"] == "blk.0.attn_q.weight")["permuted"])
        # a model card: its keys; one whose front matter is not read: a warning, the conversion goes on
        with open(os.path.join(d, "README.md"), "w") as f:
            f.write("---\nlicense: mit\ntags: [a, b]\n---\n# card\n")
        r = modelio.convert_hf(d, self.p("card.gguf"))
        g = gguf.GGUFReader(r["written"])
        self.assertEqual(g.fields["general.license"].contents(), "mit")
        self.assertEqual(g.fields["general.tags"].contents(), ["a", "b"])
        with open(os.path.join(d, "README.md"), "w") as f:
            f.write("---\nlicense: mit\nname: *alias\n---\n")
        import warnings
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = modelio.convert_hf(d, self.p("card2.gguf"))
        self.assertTrue(any("front matter is not read (line 2: anchors, aliases and tags are not read)" in str(w.message)
                            for w in caught), [str(w.message) for w in caught])
        self.assertNotIn("general.license", gguf.GGUFReader(r["written"]).fields)
        os.remove(os.path.join(d, "README.md"))
        # errors
        with self.assertRaises(modelio.NotFoundError):
            modelio.convert_hf(self.p("nowhere"))
        import json
        with open(os.path.join(d, "config.json")) as f:
            cfg = json.load(f)
        cfg["architectures"] = ["T5ForConditionalGeneration"]
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump(cfg, f)
        with self.assertRaisesRegex(modelio.UnsupportedError, "architecture T5ForConditionalGeneration is not one this converter knows "
                                    r"\(mio-convert-hf --list-architectures lists the classes it converts\)"):
            modelio.convert_hf(d, self.p("bad.gguf"))
        self.assertFalse(os.path.exists(self.p("bad.gguf")))
        self.assertEqual(modelio.hf_architectures(),
                         [("LlamaForCausalLM", "llama"), ("LLaMAForCausalLM", "llama"), ("MistralForCausalLM", "llama"),
                          ("Qwen2ForCausalLM", "qwen2"), ("Qwen3ForCausalLM", "qwen3"), ("Qwen3Model", "qwen3"),
                          ("Olmo2ForCausalLM", "olmo2"), ("SmolLM3ForCausalLM", "smollm3"),
                          ("GraniteForCausalLM", "granite"), ("Starcoder2ForCausalLM", "starcoder2"),
                          ("Gemma3ForCausalLM", "gemma3"), ("Gemma3ForConditionalGeneration", "gemma3"),
                          ("BertModel", "bert"), ("Phi3ForCausalLM", "phi3"), ("MixtralForCausalLM", "llama"),
                          ("Qwen2MoeForCausalLM", "qwen2moe"), ("Qwen3MoeForCausalLM", "qwen3moe"),
                          ("GptOssForCausalLM", "gpt-oss"), ("DeepseekV3ForCausalLM", "deepseek2")])

    def test_convert(self):
        src = os.path.join(DATA, "vocab-llama-spm.gguf")
        modelio.convert(src, self.p("v.safetensors"))
        with up_safe_open(self.p("v.safetensors"), framework="np") as f:
            self.assertIn("__gguf__", " ".join(f.metadata()))
        modelio.convert(self.p("v.safetensors"), self.p("v.gguf"))
        self.assertEqual(read(self.p("v.gguf")), read(src))
        self.make_model(self.p("m.gguf"))
        modelio.quantize_model(self.p("m.gguf"), self.p("q.gguf"), preset="Q8_0")
        with self.assertRaises(modelio.UnsupportedError) as cm:
            modelio.convert(self.p("q.gguf"), self.p("q.safetensors"))
        self.assertIn("dequantize", cm.exception.message)
        modelio.convert(self.p("q.gguf"), self.p("q.safetensors"), dequantize=True)
        q = {t.name: t for t in gguf.GGUFReader(self.p("q.gguf")).tensors}
        d = up_np.load_file(self.p("q.safetensors"))
        self.assertEqual(d["blk.0.attn_q.weight"].tobytes(),
                         gguf.quants.dequantize(q["blk.0.attn_q.weight"].data, QT.Q8_0).tobytes())
        with self.assertRaises(modelio.FileError):
            modelio.convert(self.p("missing.gguf"), self.p("x.safetensors"))


# --------------------------------------------------------------------------- packaging
class Packaging(Tmp):
    def run_py(self, code, env_extra, path):
        env = {k: v for k, v in os.environ.items() if k not in ("MODELIO_LIBRARY", "PYTHONPATH")}
        env.update(env_extra)
        env["PYTHONPATH"] = path
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=self.dir)

    # pip install / pip wheel / editable installs themselves: tests/python/test_pip_install.py
    # (ctest python_pip_install). Here, the loader's search order over the layout
    # the wheel installs (modelio/libmodelio.so.0 beside the modules), made by hand.
    def installed_layout(self):
        site = self.p("site")
        shutil.copytree(os.path.join(REPO, "python", "modelio"), os.path.join(site, "modelio"),
                        ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
        packaged = os.path.join(site, "modelio", "libmodelio.so.0")
        shutil.copyfile(os.path.realpath(os.environ["MODELIO_LIBRARY"]), packaged)
        return site, packaged

    def test_packaged_library_first(self):
        lib = os.environ["MODELIO_LIBRARY"]
        site, packaged = self.installed_layout()
        # no MODELIO_LIBRARY: the package's own copy is found first
        r = self.run_py("import modelio; print(modelio.library_path); print(modelio.library_version)",
                        {}, site)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(), [packaged, "0.1.0"])
        # MODELIO_LIBRARY wins over the package's copy
        r = self.run_py("import modelio; print(modelio.library_path)", {"MODELIO_LIBRARY": lib}, site)
        self.assertEqual(r.stdout.strip(), lib, r.stderr)
        # a MODELIO_LIBRARY that does not load is an error naming it (no silent fallback)
        r = self.run_py("import modelio", {"MODELIO_LIBRARY": self.p("nope.so")}, site)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("LibraryNotFoundError: MODELIO_LIBRARY=%s cannot be loaded" % self.p("nope.so"), r.stderr)

    def test_cpu_features(self):
        # mio_cpu_features through the package: the level the process runs and, on
        # x86-64, the AMX line (test_cpu_isa checks the line against /proc/cpuinfo)
        line = modelio.cpu_features()
        self.assertTrue(line.startswith("features: "), line)
        self.assertIn("; level: ", line)
        r = self.run_py("import modelio; print(modelio.cpu_features())",
                        {"MIO_ISA": "scalar", "MODELIO_LIBRARY": os.environ["MODELIO_LIBRARY"]},
                        os.path.join(REPO, "python"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("; level: scalar", r.stdout)
        if platform.machine() in ("x86_64", "AMD64"):
            self.assertIn("; amx: not used (", line)

    def test_tool_scripts_without_tools(self):
        # a package without its bin/ (built with MIO_BUILD_TOOLS=OFF): the console
        # script says so and exits 127, as a shell does for a missing command
        site, _ = self.installed_layout()
        r = self.run_py("import sys; from modelio import _tools; sys.argv = ['mio-inspect', '--version']; "
                        "sys.exit(_tools.mio_inspect())", {}, site)
        self.assertEqual(r.returncode, 127, r.stderr)
        self.assertIn("mio-inspect: this modelio installation has no command-line tools (looked for "
                      "bin/mio-inspect in %s)" % os.path.join(site, "modelio"), r.stderr)

    def test_not_found_message(self):
        # the source tree, nothing bundled, no MODELIO_LIBRARY, no system library
        site = self.p("src")
        shutil.copytree(os.path.join(REPO, "python", "modelio"), os.path.join(site, "modelio"),
                        ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
        r = self.run_py("import modelio", {"LD_LIBRARY_PATH": ""}, site)
        if r.returncode == 0:
            self.skipTest("a libmodelio is installed system-wide")
        self.assertIn("LibraryNotFoundError: libmodelio not found. Install the package with `pip install ./python`",
                      r.stderr)
        self.assertIn("no library in the package folder %s" % os.path.join(site, "modelio"), r.stderr)
        self.assertIn("libmodelio.so.0", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=1)
