/* SPDX-License-Identifier: MIT */
// interop_imatrix.cpp — libmodelio's imatrix reader against the peer's own
// loader: common_imatrix_load, exported (C++ linkage) by libllama-common.so from
// @node-llama-cpp/linux-x64 3.22.1, plus llama-quantize's normalisation as
// docs/QUANTIZE.md §1–§2 state it. Every file (hand-made legacy bytes, GGUF
// imatrices from libmodelio's writer, edge cases of trailer, duplicates, NULs,
// count rounding, odd sizes) must load on both sides or fail on both, with the
// same chunk count, datasets, entry names and bit-identical values. Files on
// which the peer crashes or aborts (negative name length, .counts without
// elements, non-u32 chunk keys) are not fed to it. The peer's structs are
// declared here from its documented layout; no llama.cpp code is used.
// C++ only because the peer's entry point takes std::string / std::map.
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

extern "C" {
#include "quantize/imatrix.h"
}

#ifndef MIO_PEER_DIR_DEFAULT
#define MIO_PEER_DIR_DEFAULT ""
#endif

struct peer_entry {
    std::vector<float> sums;
    std::vector<int64_t> counts;
};
struct peer_imatrix {
    std::map<std::string, peer_entry> entries;
    std::vector<std::string> datasets;
    int32_t chunk_count = 0;
    int32_t chunk_size = 0;
    bool is_legacy = false;
    bool has_metadata = false;
};
typedef bool (*load_fn)(const std::string &, peer_imatrix &);

static int n_pass, n_fail;
#define CHECK(c, ...) do { if (c) n_pass++; else { n_fail++; fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static std::string g_dir;
static int g_n;

static std::string put(const std::string &tag, const std::vector<uint8_t> &b) {
    std::string p = g_dir + "/" + std::to_string(g_n++) + "-" + tag;
    FILE *f = fopen(p.c_str(), "wb");
    if (!f || (!b.empty() && fwrite(b.data(), 1, b.size(), f) != b.size())) { perror(p.c_str()); exit(2); }
    fclose(f);
    return p;
}

struct bytes {
    std::vector<uint8_t> b;
    bytes &i32(int32_t v) { const uint8_t *p = (const uint8_t *)&v; b.insert(b.end(), p, p + 4); return *this; }
    bytes &f32(float v) { const uint8_t *p = (const uint8_t *)&v; b.insert(b.end(), p, p + 4); return *this; }
    bytes &raw(const char *s, size_t n) { b.insert(b.end(), s, s + n); return *this; }
    bytes &ent(const char *name, size_t len, int32_t ncall, std::vector<float> v) {
        i32((int32_t)len).raw(name, len).i32(ncall).i32((int32_t)v.size());
        for (float x : v) f32(x);
        return *this;
    }
};

// llama-quantize's per-entry values from the peer's loaded sums and counts.
static std::vector<float> peer_values(const peer_imatrix &m, const peer_entry &e) {
    std::vector<float> v(e.sums.size());
    if (!m.is_legacy) {
        const int64_t nc = (int64_t)e.counts.size(), ne0 = (int64_t)e.sums.size() / nc;
        for (int64_t j = 0; j < nc; j++) {
            const float c = (float)e.counts[j];
            for (int64_t i = 0; i < ne0; i++) v[j * ne0 + i] = c > 0.0f ? e.sums[j * ne0 + i] / c : 1.0f;
        }
    } else {
        const int64_t ncall = e.counts.empty() ? 0 : e.counts[0];
        for (size_t i = 0; i < e.sums.size(); i++) v[i] = ncall > 0 ? e.sums[i] / ncall : e.sums[i];
    }
    return v;
}

static void compare(load_fn load, const std::string &path) {
    peer_imatrix m;
    bool peer_ok = load(path, m) && (m.is_legacy || m.has_metadata);
    qz_imatrix *im = nullptr;
    mio_status st = mio_qz_imatrix_load(path.c_str(), &im);
    CHECK(peer_ok == (st == MIO_OK), "%s: peer %s, libmodelio %s (%s)", path.c_str(), peer_ok ? "loads" : "fails",
          st == MIO_OK ? "loads" : "fails", st == MIO_OK ? "" : mio_last_error());
    if (!peer_ok || st != MIO_OK) { mio_qz_imatrix_free(im); return; }
    CHECK(m.chunk_count == mio_qz_imatrix_chunk_count(im), "%s: chunk count %d vs %d", path.c_str(), m.chunk_count,
          mio_qz_imatrix_chunk_count(im));
    CHECK(m.datasets.size() == mio_qz_imatrix_dataset_count(im), "%s: %zu vs %llu datasets", path.c_str(), m.datasets.size(),
          (unsigned long long)mio_qz_imatrix_dataset_count(im));
    for (size_t i = 0; i < m.datasets.size() && i < mio_qz_imatrix_dataset_count(im); i++)
        CHECK(m.datasets[i] == mio_qz_imatrix_dataset(im, i), "%s: dataset %zu differs", path.c_str(), i);
    CHECK(m.entries.size() == mio_qz_imatrix_count(im), "%s: %zu vs %llu entries", path.c_str(), m.entries.size(),
          (unsigned long long)mio_qz_imatrix_count(im));
    uint64_t k = 0;
    for (const auto &[name, e] : m.entries) {
        if (k >= mio_qz_imatrix_count(im)) break;
        mio_str n = mio_qz_imatrix_name(im, k);
        CHECK(name == std::string(n.ptr, n.len), "%s: entry %llu is '%s' vs '%.*s'", path.c_str(), (unsigned long long)k,
              name.c_str(), (int)n.len, n.ptr);
        std::vector<float> pv = peer_values(m, e);
        uint64_t nv;
        const float *v = mio_qz_imatrix_values(im, k, &nv);
        bool same = nv == pv.size() && (nv == 0 || memcmp(v, pv.data(), nv * 4) == 0);
        CHECK(same, "%s: values of '%s' differ (%llu vs %zu values)", path.c_str(), name.c_str(), (unsigned long long)nv,
              pv.size());
        k++;
    }
    mio_qz_imatrix_free(im);
}

static mio_writer *gguf_new(bool ds, bool cnt, bool sz, uint32_t chunks) {
    mio_writer *w = nullptr;
    if (mio_writer_new(MIO_WRITER_DEFAULT, &w) != MIO_OK) exit(2);
    mio_writer_set_str(w, "general.type", "imatrix", 7);
    if (ds) {
        const char *d[2] = {"d1.txt", "d\0two"};
        size_t l[2] = {6, 5};
        mio_writer_set_arr_str(w, "imatrix.datasets", d, l, 2);
    }
    if (cnt) mio_writer_set_u32(w, "imatrix.chunk_count", chunks);
    if (sz) mio_writer_set_u32(w, "imatrix.chunk_size", 512);
    return w;
}
static void add(mio_writer *w, const char *name, int64_t ne0, int64_t ne1, const float *v) {
    int64_t ne[2] = {ne0, ne1};
    if (mio_writer_add_tensor(w, name, MIO_TYPE_F32, 2, ne, v, (size_t)(ne0 * ne1) * 4) != MIO_OK) {
        fprintf(stderr, "add %s: %s\n", name, mio_last_error());
        exit(2);
    }
}
static std::string gguf_put(mio_writer *w, const std::string &tag) {
    std::string p = g_dir + "/" + std::to_string(g_n++) + "-" + tag;
    if (mio_writer_write_file(w, p.c_str()) != MIO_OK) { fprintf(stderr, "%s\n", mio_last_error()); exit(2); }
    mio_writer_free(w);
    return p;
}

int main() {
    const char *dir = getenv("MIO_PEER_DIR");
    if (!dir || !*dir) dir = MIO_PEER_DIR_DEFAULT;
    std::string lib = std::string(dir) + "/libllama-common.so";
    void *h = *dir ? dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
    if (!h) {
        printf("SKIP: no peer libllama-common.so (set MIO_PEER_DIR; %s)\n", *dir ? dlerror() : "MIO_PEER_DIR unset");
        return 77;
    }
    load_fn load = (load_fn)dlsym(h, "_Z19common_imatrix_loadRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEER14common_imatrix");
    if (!load) { printf("SKIP: %s has no common_imatrix_load\n", lib.c_str()); return 77; }

    char tmpl[] = "/tmp/mio-interop-imatrix-XXXXXX";
    if (!mkdtemp(tmpl)) { perror("mkdtemp"); return 2; }
    g_dir = tmpl;
    std::vector<std::string> files;

    // legacy
    files.push_back(put("basic.dat", bytes().i32(2).ent("blk.0.ffn_up.weight", 19, 2, {2, 4, 6, 8})
                                         .ent("a", 1, 0, {5, 7}).i32(10).i32(8).raw("wiki.txt", 8).b));
    files.push_back(put("ncall.dat", bytes().i32(2).ent("neg", 3, -5, {42}).ent("three", 5, 3, {3, 6, 9.7f, 1e-3f}).b));
    files.push_back(put("dup.dat", bytes().i32(3).ent("dup", 3, 1, {3, 6, 9}).ent("o", 1, 1, {42}).ent("dup", 3, 2, {42}).b));
    files.push_back(put("nul.dat", bytes().i32(1).ent("ab\0cd", 5, 1, {1.5f}).b));
    files.push_back(put("empty-name.dat", bytes().i32(1).ent("", 0, 7, {1.5f}).b));
    files.push_back(put("trailer2.dat", bytes().i32(1).ent("x", 1, 1, {1}).raw("\x05\x01", 2).b));
    files.push_back(put("trailer-long.dat", bytes().i32(1).ent("x", 1, 1, {1}).i32(7).i32(100).raw("abc", 3).b));
    files.push_back(put("trailer-nul.dat", bytes().i32(1).ent("x", 1, 1, {1}).i32(-3).i32(5).raw("ds\0zzJUNK", 9).b));
    files.push_back(put("trailer-zero.dat", bytes().i32(1).ent("x", 1, 1, {1}).i32(7).i32(0).b));
    files.push_back(put("nonfinite.dat", bytes().i32(1).ent("x", 1, 7, {NAN, INFINITY, 1e38f, -2}).b));
    files.push_back(put("zero.dat", bytes().i32(0).b));
    files.push_back(put("short-entries.dat", bytes().i32(2).ent("x", 1, 1, {1}).b));
    files.push_back(put("nval0.dat", bytes().i32(1).i32(3).raw("abc", 3).i32(1).i32(0).b));
    files.push_back(put("short-values.dat", bytes().i32(1).i32(3).raw("abc", 3).i32(1).i32(5).f32(1).f32(2).b));
    files.push_back(put("long-name.dat", bytes().i32(1).i32(1000).raw("abc", 3).b));
    files.push_back(put("empty.dat", {}));

    // GGUF
    static const float s[14] = {4, 8, 3, 3, 5, 7, 6, 2, 1, 1, 9, 9, 13, 17.5f};
    static const float c[7] = {2.4f, 0.4f, 0.5f, -3.0f, NAN, INFINITY, 1e30f};
    static const float s5[5] = {2, 4, 6, 8, 10}, c2[2] = {2, 4}, one[1] = {1}, c3[1] = {3};
    mio_writer *w = gguf_new(true, true, true, 7);
    add(w, "w.in_sum2", 2, 7, s);
    add(w, "w.counts", 1, 7, c);
    add(w, "odd.in_sum2", 5, 1, s5);
    add(w, "odd.counts", 2, 1, c2);
    add(w, "b.counts", 1, 1, c3);
    add(w, "b.in_sum2", 3, 1, s);
    add(w, "junk.weight", 1, 1, one);
    files.push_back(gguf_put(w, "counts.gguf"));
    w = gguf_new(true, true, true, 0x80000005u);
    add(w, "x.in_sum2", 1, 1, one);
    add(w, "x.counts", 1, 1, one);
    files.push_back(gguf_put(w, "bigchunks.gguf"));
    w = gguf_new(false, true, true, 7);
    add(w, "x.in_sum2", 1, 1, one);
    add(w, "x.counts", 1, 1, one);
    files.push_back(gguf_put(w, "no-datasets.gguf"));
    w = gguf_new(true, false, true, 7);
    add(w, "x.in_sum2", 1, 1, one);
    add(w, "x.counts", 1, 1, one);
    files.push_back(gguf_put(w, "no-count.gguf"));
    w = gguf_new(true, true, true, 3);
    add(w, "x.in_sum2", 1, 1, one);
    files.push_back(gguf_put(w, "mismatched.gguf"));
    w = gguf_new(true, true, true, 3);
    add(w, "x.weight", 1, 1, one);
    files.push_back(gguf_put(w, "no-pairs.gguf"));
    files.push_back(gguf_put(gguf_new(true, true, true, 3), "no-tensors.gguf"));
    {
        // a larger random one: 3 experts of 64 columns, counts with a zero expert
        std::vector<float> sums(64 * 3), counts = {17, 0, 300};
        uint64_t r = 12345;
        for (float &x : sums) { r = r * 6364136223846793005ull + 1442695040888963407ull; x = (float)(r >> 40) / 1e5f; }
        w = gguf_new(true, true, true, 99);
        add(w, "blk.0.ffn_up_exps.weight.in_sum2", 64, 3, sums.data());
        add(w, "blk.0.ffn_up_exps.weight.counts", 1, 3, counts.data());
        files.push_back(gguf_put(w, "experts.gguf"));
    }

    for (const auto &f : files) compare(load, f);
    std::string rm = "rm -rf '" + g_dir + "'";
    if (system(rm.c_str()) != 0) fprintf(stderr, "note: could not remove %s\n", g_dir.c_str());
    printf("%d passed, %d failed\n", n_pass, n_fail);
    return n_fail ? 1 : 0;
}
