# SPDX-License-Identifier: MIT
"""modelio.checkpoint against upstream safetensors (PyPI), run with the peers'
venv python (MIO_PY_PEERS): a state dict written here is the file
safetensors.numpy.save_file writes for the same dict (byte for byte) and reads
back as identical arrays; one written by upstream loads here; aliases, strict
and lenient matching; every refusal raises modelio.Error, writes nothing
(saves) and changes no destination byte (loads). Checkpoint directories:
save_checkpoint / load_checkpoint round trip (u64 step and seed exact, None
fields omitted), upstream reads the state dict inside, a second save replaces
the first, refusals leave the directory as it was, damage is refused."""
import os
import sys
import tempfile

import numpy as np
from safetensors.numpy import save_file as up_save, load_file as up_load

import modelio
from modelio.checkpoint import save_state_dict, load_state_dict, save_checkpoint, load_checkpoint

fails = 0


def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what)


def raises(fn, what, sub=None):
    try:
        fn()
    except modelio.Error as e:
        check(sub is None or sub in str(e), "%s: message %r lacks %r" % (what, str(e), sub))
        return
    check(False, what + ": no modelio.Error")


def main():
    rng = np.random.default_rng(7)
    sd = {"layer.0.w": rng.standard_normal((3, 4), dtype=np.float32),
          "layer.0.b": rng.standard_normal(4).astype(np.float16),
          "step": np.array([12345678901], dtype=np.int64),
          "empty": np.zeros((0, 3), dtype=np.float32)}
    with tempfile.TemporaryDirectory() as d:
        j = lambda n: os.path.join(d, n)
        # ours -> upstream: same bytes as upstream's writer, same arrays
        save_state_dict(j("ours.safetensors"), sd)
        up_save(sd, j("up.safetensors"))
        with open(j("ours.safetensors"), "rb") as a, open(j("up.safetensors"), "rb") as b:
            check(a.read() == b.read(), "state dict bytes differ from safetensors.numpy.save_file's")
        back = up_load(j("ours.safetensors"))
        check(sorted(back) == sorted(sd), "upstream reads other names: %r" % sorted(back))
        for k, v in sd.items():
            check(back[k].dtype == v.dtype and back[k].shape == v.shape and np.array_equal(back[k], v),
                  "upstream reads %s differently" % k)
        # upstream -> ours
        dst = {k: np.full_like(v, 0) for k, v in sd.items()}
        check(load_state_dict(j("up.safetensors"), dst) == 4, "load count")
        for k, v in sd.items():
            check(np.array_equal(dst[k], v), "loaded %s differs" % k)

        # aliases: the file's "layer.0.w" fills "encoder.w"
        dst = {"encoder.w": np.zeros((3, 4), np.float32), "layer.0.b": np.zeros(4, np.float16),
               "step": np.zeros(1, np.int64), "empty": np.zeros((0, 3), np.float32)}
        load_state_dict(j("up.safetensors"), dst, aliases={"layer.0.w": "encoder.w"})
        check(np.array_equal(dst["encoder.w"], sd["layer.0.w"]), "alias not applied")

        # a failing load changes nothing: the last-checked rule fails after valid matches
        dst = {k: np.full_like(v, 7) for k, v in sd.items()}
        dst["layer.0.b"] = np.full(4, 7, np.float32)  # F16 in the file
        raises(lambda: load_state_dict(j("up.safetensors"), dst), "dtype mismatch", "F16 in the file, F32")
        check(all(np.all(v == 7) for v in dst.values()), "a failed load changed a destination")
        dst = {k: np.full_like(v, 7) for k, v in sd.items()}
        dst["layer.0.w"] = np.full((4, 3), 7, np.float32)
        raises(lambda: load_state_dict(j("up.safetensors"), dst), "shape mismatch", "shape [3, 4] in the file")
        check(all(np.all(v == 7) for v in dst.values()), "a failed load changed a destination")
        dst = {k: np.full_like(v, 7) for k, v in sd.items() if k != "step"}
        raises(lambda: load_state_dict(j("up.safetensors"), dst), "unexpected", "unexpected tensor 'step'")
        check(all(np.all(v == 7) for v in dst.values()), "a failed load changed a destination")
        check(load_state_dict(j("up.safetensors"), dst, strict=False) == 3, "lenient load count")
        dst = {k: np.full_like(v, 7) for k, v in sd.items()}
        dst["extra"] = np.full(2, 7, np.float32)
        raises(lambda: load_state_dict(j("up.safetensors"), dst), "missing", "tensor 'extra' (destination #4) is missing")
        check(all(np.all(v == 7) for v in dst.values()), "a failed load changed a destination")
        ro = np.zeros((3, 4), np.float32)
        ro.flags.writeable = False
        raises(lambda: load_state_dict(j("up.safetensors"), {"layer.0.w": ro}), "read-only", "writable")

        # refused saves write nothing
        for bad, sub in (({"": sd["step"]}, "empty name"), ({"__metadata__": sd["step"]}, "__metadata__"),
                         ({"x": np.zeros(2, np.int32)}, "has dtype I32"), ({"a\0b": sd["step"]}, "NUL")):
            raises(lambda: save_state_dict(j("bad.safetensors"), bad), "save %r" % list(bad), sub)
            check(not os.path.exists(j("bad.safetensors")), "a refused save left a file")
        check(sorted(os.listdir(d)) == ["ours.safetensors", "up.safetensors"], "stray files: %r" % os.listdir(d))
    checkpoints(sd)
    print("checkpoint: %s" % ("ok" if not fails else "%d failures" % fails))
    return 1 if fails else 0


def checkpoints(sd):
    with tempfile.TemporaryDirectory() as d:
        ck = os.path.join(d, "step-100")
        blob = bytes(range(256)) * 3
        ts = {"step": 100, "seed": 2 ** 64 - 1, "lr": 0.001, "es_noise": 2, "note": None}
        save_checkpoint(ck, {"model.safetensors": sd, "adapters.safetensors": {"a": sd["step"]}}, ts, optimizer=blob)
        check(sorted(os.listdir(d)) == ["step-100"], "stray entries: %r" % os.listdir(d))
        check(sorted(os.listdir(ck)) == ["adapters.safetensors", "checkpoint.json", "model.safetensors",
                                         "optimizer.fucina", "trainer_state.json"], "files: %r" % os.listdir(ck))
        state, sds, opt = load_checkpoint(ck)
        check(state == {"step": 100, "seed": 2 ** 64 - 1, "lr": 0.001, "es_noise": 2}, "trainer state %r" % state)
        check(opt == blob, "optimizer blob differs")
        check(sorted(sds) == ["adapters.safetensors", "model.safetensors"], "state dicts %r" % sorted(sds))
        for k, v in sd.items():
            check(np.array_equal(sds["model.safetensors"][k], v), "checkpoint tensor %s differs" % k)
        up = up_load(os.path.join(ck, "model.safetensors"))
        check(np.array_equal(up["layer.0.w"], sd["layer.0.w"]), "upstream reads the checkpoint's model differently")

        # a second save replaces the first; refused saves change nothing
        save_checkpoint(ck, {"model.safetensors": {"w": np.ones(3, np.float32)}}, {"step": 200, "seed": 1})
        state, sds, opt = load_checkpoint(ck)
        check(state == {"step": 200, "seed": 1} and opt is None and list(sds) == ["model.safetensors"],
              "second save: %r %r" % (state, list(sds)))
        raises(lambda: save_checkpoint(ck, {"model.safetensors": {"w": np.ones(3, np.int32)}}, {"step": 300, "seed": 1}),
               "bad dtype", "I32")
        raises(lambda: save_checkpoint(ck, {}, {"step": 300}), "no seed", "'seed'")
        raises(lambda: save_checkpoint(ck, {}, {"step": -1, "seed": 1}), "negative step", "2**64")
        raises(lambda: save_checkpoint(ck, {"../x": {}}, {"step": 300, "seed": 1}), "bad name", "plain file name")
        check(load_checkpoint(ck)[0]["step"] == 200, "a refused save changed the checkpoint")
        check(sorted(os.listdir(d)) == ["step-100"], "a refused save left entries: %r" % os.listdir(d))

        # damage is refused
        with open(os.path.join(ck, "model.safetensors"), "r+b") as f:
            f.seek(-1, 2)
            f.write(b"\x55")
        raises(lambda: load_checkpoint(ck), "changed file", "does not match the sentinel")
        os.unlink(os.path.join(ck, "checkpoint.json"))
        raises(lambda: load_checkpoint(ck), "no sentinel", "has no sentinel")


if __name__ == "__main__":
    sys.exit(main())
